package dev.vsm.t.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Runs a shell line under {@code script(1)}, so that its stdout is a pseudo-terminal. */
public final class ScriptRun {
    private ScriptRun() {}

    /** The line's exit status and everything it wrote to the terminal (stdout and stderr together). */
    public static Vsm.Result underTerminal(Vsm vsm, String shellLine) {
        try {
            ProcessBuilder pb = new ProcessBuilder("script", "-qefc", shellLine, "/dev/null")
                    .directory(vsm.sandbox().toFile())
                    .redirectErrorStream(true);
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("'" + shellLine + "' did not finish in 120 s");
            }
            return new Vsm.Result(p.exitValue(), out, "");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
