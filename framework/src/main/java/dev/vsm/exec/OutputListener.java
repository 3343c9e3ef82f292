package dev.vsm.exec;

/** Hears a running command's output, one line at a time, as it comes. */
@FunctionalInterface
public interface OutputListener {
    /** Which of the command's outputs a line came from. */
    enum Channel {
        STDOUT,
        STDERR
    }

    /** Called from the thread that pumps that output; a line has no line terminator ({@code \n} or {@code \r}). */
    void line(Channel channel, String line);
}
