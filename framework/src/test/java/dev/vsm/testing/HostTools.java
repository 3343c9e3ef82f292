package dev.vsm.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.opentest4j.TestAbortedException;

/**
 * Running the host's tools from tests that need real devices (losetup, lvm2), and the rule for
 * when they are missing: skip with the reason, except under CI ({@code CI=true}), where the test
 * fails — CI must not pass by skipping.
 */
public final class HostTools {
    private HostTools() {}

    /** What a tool printed and how it ended. */
    public record Result(int exit, String out, String err) {
        public boolean ok() {
            return exit == 0;
        }
    }

    /** Skips the test with the reason, or fails it under CI. Never returns. */
    public static RuntimeException unavailable(String reason) {
        return unavailable(reason, System.getenv("CI"));
    }

    /** {@link #unavailable(String)} with the value of {@code CI} given. */
    static RuntimeException unavailable(String reason, String ci) {
        String message = "needs the real host: " + reason;
        if ("true".equalsIgnoreCase(ci)) {
            throw new AssertionError(message + " (CI=true: such tests must run, not skip)");
        }
        throw new TestAbortedException(message);
    }

    /** Requires root and the given executables, else {@link #unavailable}. */
    public static void require(String why, String... executables) {
        if (!isRoot()) {
            unavailable("root (" + why + ")");
        }
        for (String exe : executables) {
            if (!Files.isExecutable(Path.of(exe))) {
                unavailable(exe + " (" + why + "); install it, e.g. apt-get install lvm2");
            }
        }
    }

    public static boolean isRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("Uid:"))
                    .anyMatch(l -> l.split("\\s+")[2].equals("0"));
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs a tool with extra environment variables, stdin from /dev/null; at most 60 s. */
    public static Result run(Map<String, String> env, String... argv) {
        Path err = null;
        try {
            err = Files.createTempFile("vsm-tool-err", ".txt");
            ProcessBuilder pb = new ProcessBuilder(argv)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, out, "timed out");
            }
            return new Result(p.exitValue(), out, Files.readString(err));
        } catch (IOException e) {
            return new Result(-1, "", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "", "interrupted");
        } finally {
            if (err != null) {
                try {
                    Files.deleteIfExists(err);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    /** Runs a tool and fails the test when it fails; returns its stdout. */
    public static String mustRun(Map<String, String> env, String... argv) {
        Result r = run(env, argv);
        if (!r.ok()) {
            throw new AssertionError(
                    String.join(" ", argv) + " failed (exit " + r.exit() + "): " + (r.out() + r.err()).strip());
        }
        return r.out();
    }
}
