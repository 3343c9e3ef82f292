package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code vsm serve} a test started, on 127.0.0.1 at a port the system chose: its port, its
 * self-signed certificate (made at its first start) and clients that trust that certificate alone.
 * {@link #close} stops it with SIGTERM and checks that it ended as SIGTERM ends it (143).
 */
public final class ServeProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on https://127\\.0\\.0\\.1:([0-9]+)/");

    private final Vsm.Started started;
    private final int port;
    private final Path certificate;

    private ServeProcess(Vsm.Started started, int port, Path certificate) {
        this.started = started;
        this.port = port;
        this.certificate = certificate;
    }

    /** Starts {@code vsm serve --listen 127.0.0.1:0} with {@code options} and waits until it listens (90 s at most). */
    public static ServeProcess start(Vsm vsm, String... options) {
        List<String> args = new ArrayList<>(List.of("serve", "--listen", "127.0.0.1:0"));
        args.addAll(List.of(options));
        Vsm.Started started = vsm.start(args.toArray(String[]::new));
        return new ServeProcess(
                started, awaitListening(started), vsm.config().getParent().resolve("ssl/vsm-ssl.pem"));
    }

    private static int awaitListening(Vsm.Started started) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        try {
            while (System.nanoTime() < deadline) {
                Matcher m = LISTENING.matcher(Files.readString(started.errFile(), StandardCharsets.UTF_8));
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
                if (!started.process().isAlive()) {
                    throw new AssertionError(
                            "vsm serve ended: " + started.finish().err());
                }
                Thread.sleep(100);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        started.process().destroyForcibly();
        throw new AssertionError("vsm serve did not listen within 90 s");
    }

    /**
     * Makes an API token ({@code vsm token add USER@REALM NAME}) and returns it as clients give it,
     * {@code USER@REALM!NAME=SECRET}; the secret is a random UUID, as pve's.
     */
    public static String token(Vsm vsm, String user, String name, String... options) {
        List<String> args = new ArrayList<>(List.of("token", "add", user, name, "--output-format", "json"));
        args.addAll(List.of(options));
        JsonNode made = vsm.run(args.toArray(String[]::new)).ok().json();
        assertThat(made.get("value").asText()).matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
        return made.get("full-tokenid").asText() + "=" + made.get("value").asText();
    }

    public int port() {
        return port;
    }

    /** The server's certificate (PEM), which its clients trust alone. */
    public Path certificate() {
        return certificate;
    }

    /** A new client (its own connections) that trusts the server's certificate alone. */
    public ApiClient client() {
        return new ApiClient(certificate, port);
    }

    /**
     * Runs the client script {@code t/clients/<script>} with Debian's python3 and its
     * python3-proxmoxer, unchanged, as {@code script PORT CERTIFICATE args...}; without them the
     * test is unavailable (skipped, or failed under {@code CI=true}).
     */
    public HostTools.Result proxmoxer(String script, String... args) {
        Path python = Path.of("/usr/bin/python3");
        if (!Files.isExecutable(python)
                || HostTools.run(Map.of(), python.toString(), "-c", "import proxmoxer")
                                .exit()
                        != 0) {
            throw HostTools.unavailable("python3-proxmoxer (apt-get install python3-proxmoxer; t/run-tests does)");
        }
        List<String> argv = new ArrayList<>(List.of(
                python.toString(),
                Vsm.HOME.resolve("t/clients").resolve(script).toString(),
                Integer.toString(port),
                certificate.toString()));
        argv.addAll(List.of(args));
        // no __pycache__ of t/clients' shared module in the checkout
        return HostTools.run(Map.of("PYTHONDONTWRITEBYTECODE", "1"), argv.toArray(String[]::new));
    }

    /** {@link #proxmoxer}, the token ({@code USER@REALM!NAME=SECRET}) given as its user, name and secret before {@code args}. */
    public HostTools.Result proxmoxerWithToken(String script, String token, String... args) {
        List<String> argv = new ArrayList<>(List.of(
                token.substring(0, token.indexOf('!')),
                token.substring(token.indexOf('!') + 1, token.indexOf('=')),
                token.substring(token.indexOf('=') + 1)));
        argv.addAll(List.of(args));
        return proxmoxer(script, argv.toArray(String[]::new));
    }

    public Vsm.Started started() {
        return started;
    }

    /** SIGTERM, then the server's end: exit status 143 within 60 s, in-flight work finished; what it printed. */
    public Vsm.Result stop() {
        started.process().destroy();
        Vsm.Result result = started.finish(60);
        assertThat(result.exit())
                .as("exit status after SIGTERM; stderr: %s", result.err())
                .isEqualTo(143);
        return result;
    }

    /** {@link #stop}. */
    @Override
    public void close() {
        stop();
    }
}
