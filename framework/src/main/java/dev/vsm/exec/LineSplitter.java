package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One output of a command: handed to a listener line by line as it comes, and kept whole for
 * the command's {@link dev.vsm.spi.CommandRunner.Result} and error message.
 *
 * <p>A line ends at {@code \n}, {@code \r} or {@code \r\n}: tools that redraw a progress line
 * ({@code qemu-img convert -p}) end each piece with {@code \r} alone, and each piece must reach the
 * listener when it comes. (commons-exec's {@code LogOutputStream} splits there only until the
 * first {@code \r}: its check for a following {@code \n} is not reset by bytes that arrive in a
 * block, so every later piece waited for the command's end.)
 */
final class LineSplitter extends OutputStream {
    private final OutputListener.Channel channel;
    private final OutputListener listener;
    private final StringBuilder text = new StringBuilder();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean afterCr;

    LineSplitter(OutputListener.Channel channel, OutputListener listener) {
        this.channel = requireNonNull(channel, "channel");
        this.listener = requireNonNull(listener, "listener");
    }

    @Override
    public void write(int b) {
        if (b == '\n' && afterCr) {
            afterCr = false; // the \n of a \r\n
            return;
        }
        afterCr = b == '\r';
        if (b == '\n' || b == '\r') {
            emit();
        } else {
            line.write(b);
        }
    }

    @Override
    public void write(byte[] bytes, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(bytes[i]);
        }
    }

    /** What is left without a line end counts as a line (the command ended, or the pump flushes at its end). */
    @Override
    public void flush() {
        if (line.size() > 0) {
            emit();
        }
    }

    @Override
    public void close() {
        flush();
    }

    private void emit() {
        String piece = line.toString(StandardCharsets.UTF_8);
        line.reset();
        synchronized (text) {
            text.append(piece).append('\n');
        }
        listener.line(channel, piece);
    }

    String text() {
        synchronized (text) {
            return text.toString();
        }
    }
}
