package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.cli.Main;
import dev.vsm.env.Environment;
import dev.vsm.t.guest.InGuest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs vsm in a sandbox: its own config file, data home and lock directory under a temp dir, so
 * tests never touch the machine's vsm configuration.
 *
 * <p>{@link #run} runs the command in this JVM through the CLI's entry point ({@code Main.run}),
 * with this sandbox's environment over the JVM's, empty standard input and output of its own: a
 * JVM start per command costs about a second. Through the real {@code cli/vsm} launcher, as a
 * process of its own, run what needs one: {@link #process()} for one command, {@link #processes()}
 * for all of this sandbox's (a launcher of their own, signals, crashes, locks between processes,
 * other users), and {@link #start} and {@link #shell} always. {@code -Dvsm.t.processes=true} runs
 * every command as a process. In-process the working directory is the JVM's, not the sandbox.
 */
public final class Vsm {
    public static final Path HOME =
            Path.of(System.getProperty("vsm.home", "..")).toAbsolutePath().normalize();
    public static final Path LAUNCHER = HOME.resolve("cli/vsm");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path sandbox;
    private final Map<String, String> env;
    private Path launcher = LAUNCHER;
    private boolean processes = Boolean.getBoolean("vsm.t.processes");

    public Vsm(Path sandbox) {
        this.sandbox = sandbox;
        this.env = new HashMap<>();
        env.put("VSM_CONFIG", sandbox.resolve("etc/storage.yaml").toString());
        env.put("XDG_DATA_HOME", sandbox.resolve("data").toString());
        env.put("VSM_LOCK_DIR", sandbox.resolve("locks").toString());
        env.put("VSM_PLUGIN_DIR", sandbox.resolve("plugins").toString());
        env.put("HOME", sandbox.toString());
        try {
            Files.createDirectories(
                    sandbox.resolve("plugins")); // an empty plugin directory, as $VSM_PLUGIN_DIR names it
            // $VSM_CONFIG must name a file that exists (as --config); this one holds what vsm's
            // built-in default is, so tests run on a 'local' storage as on a fresh install
            Files.createDirectories(config().getParent());
            if (Files.notExists(config())) {
                Files.writeString(
                        config(),
                        "storages:\n  local:\n    type: dir\n    path: " + defaultLocal()
                                + "\n    content: [images, rootdir, iso, vztmpl, backup, snippets, import]\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path sandbox() {
        return sandbox;
    }

    public Path config() {
        return Path.of(env.get("VSM_CONFIG"));
    }

    /** The built-in default storage's directory. */
    public Path defaultLocal() {
        return sandbox.resolve("data/vsm/local");
    }

    /** Runs vsm through another launcher script (e.g. one with a class path of its own). */
    public Vsm launcher(Path script) {
        launcher = script;
        processes = true;
        return this;
    }

    /** Runs every command of this sandbox through the launcher, as a process of its own. */
    public Vsm processes() {
        processes = true;
        return this;
    }

    /** This sandbox (its environment shared), running its commands through the launcher as processes. */
    public Vsm process() {
        Vsm view = new Vsm(this);
        view.processes = true;
        return view;
    }

    private Vsm(Vsm other) {
        this.sandbox = other.sandbox;
        this.env = other.env;
        this.launcher = other.launcher;
    }

    public Vsm env(String key, String value) {
        env.put(key, value);
        return this;
    }

    /** The environment vsm runs with (for tests that start it themselves). */
    public Map<String, String> environment() {
        return Map.copyOf(env);
    }

    /** Sets several environment variables (e.g. a test volume group's LVM_SYSTEM_DIR). */
    public Vsm env(Map<String, String> variables) {
        env.putAll(variables);
        return this;
    }

    /** The outcome of one run. */
    public record Result(int exit, String out, String err) {
        public Result ok() {
            assertThat(exit).as("exit status of vsm; stderr: %s", err).isZero();
            return this;
        }

        /** Bad input: exit 2 and exactly one line on stderr. */
        public Result badInput(String expectedMessagePart) {
            assertThat(exit).as("exit status; stdout: %s stderr: %s", out, err).isEqualTo(2);
            assertThat(err.strip().lines().count()).as("stderr lines: %s", err).isEqualTo(1);
            assertThat(err).contains(expectedMessagePart);
            return this;
        }

        public JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + out, e);
            }
        }

        public List<String> lines() {
            return out.lines().toList();
        }
    }

    public Result run(String... args) {
        if (InGuest.inside()) {
            return runInGuest(args);
        }
        if (!processes) {
            return runHere(args);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(sandbox.toFile());
        pb.environment().putAll(env);
        Path outFile;
        Path errFile;
        try {
            outFile = Files.createTempFile(sandbox, ".vsm-out", "");
            errFile = Files.createTempFile(sandbox, ".vsm-err", "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        pb.redirectOutput(outFile.toFile())
                .redirectError(errFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("vsm " + String.join(" ", args) + " did not finish in 120 s");
            }
            String out = Files.readString(outFile, StandardCharsets.UTF_8);
            String err = Files.readString(errFile, StandardCharsets.UTF_8);
            Files.delete(outFile);
            Files.delete(errFile);
            return new Result(p.exitValue(), out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * In this JVM, as the launcher would run it: exit status, standard output and error of its own.
     * An exception that escapes {@code Main.run} is what the JVM makes of one that escapes
     * {@code main}: exit status 1 and the stack trace on standard error.
     */
    private Result runHere(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            try {
                exit = Main.run(
                        args,
                        InputStream.nullInputStream(),
                        o,
                        e,
                        Environment.system().with(env));
            } catch (RuntimeException | Error t) {
                e.print("Exception in thread \"main\" ");
                t.printStackTrace(e);
                exit = 1;
            } finally {
                System.clearProperty("VSM_LOG_LEVEL"); // set by --verbose for the one run
            }
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * In the guest a JVM start costs seconds, so vsm runs in the test's JVM, through the CLI's
     * in-process entry point, with this sandbox's config and plugin directory as options. The
     * environment set here does not reach it: the guest's JVM was started with the one it needs
     * (LVM_SYSTEM_DIR, VSM_LOCK_DIR).
     */
    private Result runInGuest(String... args) {
        List<String> argv =
                new ArrayList<>(List.of("--config", config().toString(), "--plugin-dir", env.get("VSM_PLUGIN_DIR")));
        argv.addAll(List.of(args));
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = dev.vsm.cli.Main.run(
                argv.toArray(String[]::new),
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        System.clearProperty("VSM_LOG_LEVEL"); // set by --verbose for the one run
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Runs a bash line ({@code pipefail} on) in the sandbox with vsm's environment, for pipelines
     * of vsm commands; {@code vsm } in it is the launcher.
     */
    public Result shell(String line) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-o", "pipefail", "-c", line.replace("vsm ", launcher + " "))
                .directory(sandbox.toFile())
                .redirectOutput(sandbox.resolve("sh.out").toFile())
                .redirectError(sandbox.resolve("sh.err").toFile());
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS))
                    .as("%s ended within 120 s", line)
                    .isTrue();
            return new Result(
                    p.exitValue(),
                    Files.readString(sandbox.resolve("sh.out")),
                    Files.readString(sandbox.resolve("sh.err")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Starts vsm without waiting for it (for tests that kill it): output goes to
     * {@code .vsm-bg-*} files in the sandbox (not part of a {@link Tree} snapshot), which
     * {@link Started#finish} reads and removes. The launcher execs java, so the process is vsm.
     */
    public Started start(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(launcher.toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(sandbox.toFile());
        pb.environment().putAll(env);
        try {
            Path outFile = Files.createTempFile(sandbox, ".vsm-bg-out", "");
            Path errFile = Files.createTempFile(sandbox, ".vsm-bg-err", "");
            pb.redirectOutput(outFile.toFile())
                    .redirectError(errFile.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            return new Started(pb.start(), outFile, errFile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A vsm started with {@link #start}. */
    public record Started(Process process, Path outFile, Path errFile) {
        /**
         * Waits until the process stopped itself at its test pause point ({@code vsm.test.pause-before},
         * set through {@code VSM_JAVA_OPTS}: state {@code T} in {@code /proc/<pid>/stat}); fails when it
         * ended first or did not stop within {@code seconds}.
         */
        public void awaitPaused(int seconds) {
            Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            try {
                while (true) {
                    if (!process.isAlive()) {
                        throw new AssertionError("vsm ended before its pause point: " + finish());
                    }
                    String line = Files.readString(stat);
                    if (line.substring(line.lastIndexOf(')') + 2).startsWith("T")) {
                        return;
                    }
                    assertThat(System.nanoTime())
                            .as("vsm reached its pause point within %d s", seconds)
                            .isLessThan(deadline);
                    Thread.sleep(50);
                }
            } catch (IOException e) {
                if (!process.isAlive()) {
                    throw new AssertionError("vsm ended before its pause point: " + finish());
                }
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        /** Waits for it to end (at most 120 s) and returns what it did. */
        public Result finish() {
            return finish(120);
        }

        /** Waits for it to end (at most {@code seconds}: JVMs in the TCG guest start slowly) and returns what it did. */
        public Result finish(int seconds) {
            try {
                if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("vsm did not finish in " + seconds + " s");
                }
                Result r = new Result(
                        process.exitValue(),
                        Files.readString(outFile, StandardCharsets.UTF_8),
                        Files.readString(errFile, StandardCharsets.UTF_8));
                Files.deleteIfExists(outFile);
                Files.deleteIfExists(errFile);
                return r;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * Makes everything in the sandbox deletable again: base volumes are made immutable with
     * {@code chattr +i} (as pve does), which would keep JUnit from removing the temp dir.
     */
    public void releaseImmutable() {
        try {
            new ProcessBuilder("chattr", "-R", "-f", "-i", sandbox.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor(60, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes a config file for this sandbox. */
    public Vsm writeConfig(String yaml) {
        try {
            Files.createDirectories(config().getParent());
            Files.writeString(config(), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }
}
