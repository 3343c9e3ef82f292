package dev.vsm.cli.command;

import dev.vsm.api.VsmStorage;
import dev.vsm.cli.support.Vsm;
import dev.vsm.server.Tls;
import dev.vsm.server.VsmServer;
import dev.vsm.server.access.Tickets;
import dev.vsm.spi.StorageException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vsm serve}: pve's storage API over HTTPS (docs/api.md), until SIGTERM or Ctrl-C, which
 * let the requests in flight finish. The classes of the server (Jetty's) are loaded only here.
 */
@Command(
        name = "serve",
        description =
                "Serve pve's storage REST API (/api2/json) over HTTPS, with API tokens (vsm token), passwords (vsm user) and grants (vsm acl).")
public final class ServeCommand extends AccessCommand {
    /** Where a request's messages ("successfully created ...") go: the answer carries the result. */
    private static final PrintStream DISCARD =
            new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);

    @Option(
            names = "--listen",
            paramLabel = "ADDRESS:PORT",
            defaultValue = "127.0.0.1:8006",
            description = "where to listen (default 127.0.0.1:8006, pve's port; port 0: any free one)")
    String listen;

    @Option(
            names = "--certificate",
            paramLabel = "FILE",
            description =
                    "the certificate chain (PEM); default: a self-signed one made at first start in ssl/ beside the configuration")
    Path certificate;

    @Option(
            names = "--key",
            paramLabel = "FILE",
            description = "its private key (PEM, PKCS#8, readable by its owner only)")
    Path key;

    @Option(
            names = "--max-upload",
            paramLabel = "MIB",
            defaultValue = "65536",
            description =
                    "the most an upload's body may have, in MiB (default 65536: 64 GiB); more is refused with 413")
    long maxUploadMib;

    @Override
    void execute() {
        InetSocketAddress address = address(listen);
        if (maxUploadMib < 1 || maxUploadMib > Long.MAX_VALUE >> 20) {
            throw StorageException.badInput("--max-upload: give at least 1 MiB, at most 2^43");
        }
        if ((certificate == null) != (key == null)) {
            throw StorageException.badInput("give --certificate and --key together, or neither");
        }
        Vsm vsm = vsm();
        Path sslDir = configFile().toAbsolutePath().getParent().resolve("ssl");
        KeyStore keys = access(
                () -> certificate != null ? Tls.fromPem(certificate, key) : Tls.selfSigned(sslDir, nodeName(vsm)));
        VsmServer server = VsmServer.builder()
                .listen(address)
                .keyStore(keys)
                .access(accessFile())
                .tickets(access(() -> Tickets.inDirectory(sslDir)))
                .version(version())
                .maxUpload(maxUploadMib << 20)
                .storage(() -> VsmStorage.builder()
                        .configFile(vsm.configOption())
                        .pluginDirectory(vsm.pluginDirOption())
                        .environment(vsm.environment().asMap())
                        .output(DISCARD, vsm.err())
                        .quiet(true)
                        .build())
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    server.close();
                    try {
                        stopped.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "vsm-serve-stop");
        try {
            server.start();
            Runtime.getRuntime().addShutdownHook(hook);
            vsm.err()
                    .println("vsm serve: listening on https://" + hostPort(address.getHostString(), server.port())
                            + "/api2/json/ (certificate: "
                            + (certificate != null ? certificate : sslDir.resolve(Tls.CERTIFICATE))
                            + ")");
            vsm.err().flush();
            server.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            server.close();
            throw StorageException.failed("vsm serve: cannot listen on %s: %s", listen, e.getMessage());
        } finally {
            stopped.countDown();
        }
    }

    private static String nodeName(Vsm vsm) {
        try (VsmStorage storage = VsmStorage.builder()
                .configFile(vsm.configOption())
                .environment(vsm.environment().asMap())
                .build()) {
            return storage.nodeName();
        }
    }

    private static String version() {
        String v = Vsm.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }

    private static String hostPort(String host, int port) {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    /** {@code ADDRESS:PORT}, an IPv6 address in brackets; a name is not looked up here, only an address literal is taken. */
    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || !text.substring(colon + 1).matches("[0-9]{1,5}")) {
            throw StorageException.badInput("--listen: give ADDRESS:PORT, e.g. 127.0.0.1:8006 or [::1]:8006");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(text.substring(colon + 1));
        if (port > 65535 || !(host.matches("[0-9.]+") || host.matches("[0-9A-Fa-f:]+"))) {
            throw StorageException.badInput("--listen: give an IP address and a port up to 65535, e.g. 127.0.0.1:8006");
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw StorageException.badInput("--listen: '%s' is not an IP address", host);
        }
        return address;
    }
}
