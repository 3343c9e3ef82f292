package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import java.io.PrintStream;

/** A {@link Console} on two print streams (stdout and stderr for the command line). */
public final class StdConsole implements Console {
    private final PrintStream out;
    private final PrintStream err;

    public StdConsole(PrintStream out, PrintStream err) {
        this.out = requireNonNull(out, "out");
        this.err = requireNonNull(err, "err");
    }

    @Override
    public void info(String line) {
        out.println(line);
        out.flush();
    }

    @Override
    public void warn(String line) {
        err.println(line);
        err.flush();
    }
}
