package dev.vsm.progress;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where a {@link ProgressMeter} writes: a terminal line redrawn in place, or plain lines. */
public interface ProgressOutput {
    /** True on a terminal: the meter redraws one line while the work runs. */
    boolean live();

    /** Replaces the line being drawn (only called when {@link #live()}). */
    void redraw(String line);

    /** Writes a finished line (after the drawn one, if any). */
    void line(String line);

    /** A terminal: {@code \r}, the line, and blanks over what is left of the previous one. */
    static ProgressOutput terminal(PrintStream out) {
        requireNonNull(out, "out");
        return new ProgressOutput() {
            private int drawn;

            @Override
            public boolean live() {
                return true;
            }

            @Override
            public synchronized void redraw(String line) {
                out.print("\r" + line + " ".repeat(Math.max(0, drawn - line.length())));
                out.flush();
                drawn = line.length();
            }

            @Override
            public synchronized void line(String line) {
                if (drawn > 0) {
                    redraw(line);
                    out.println();
                    drawn = 0;
                } else {
                    out.println(line);
                }
                out.flush();
            }
        };
    }

    /** Not a terminal: no redraws, finished lines go to the console. */
    static ProgressOutput lines(Console console) {
        requireNonNull(console, "console");
        return new ProgressOutput() {
            @Override
            public boolean live() {
                return false;
            }

            @Override
            public void redraw(String line) {
                // nothing is drawn in place off a terminal
            }

            @Override
            public void line(String line) {
                console.info(line);
            }
        };
    }

    /** Nothing at all ({@code --quiet}). */
    static ProgressOutput none() {
        return new ProgressOutput() {
            @Override
            public boolean live() {
                return false;
            }

            @Override
            public void redraw(String line) {
                // quiet
            }

            @Override
            public void line(String line) {
                // quiet
            }
        };
    }

    /**
     * True when this process's standard output is a terminal (Linux: {@code /proc/self/fd/1}
     * names a tty). Java 17 can only tell whether stdin and stdout both are.
     */
    static boolean stdoutIsTerminal() {
        return isTerminal(1);
    }

    /** True when this process's standard error is a terminal (where progress goes when stdout carries data). */
    static boolean stderrIsTerminal() {
        return isTerminal(2);
    }

    private static boolean isTerminal(int fd) {
        try {
            String target =
                    Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
