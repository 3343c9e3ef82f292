package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import org.apache.commons.exec.LogOutputStream;

/**
 * One output of a command: handed to a listener line by line as it comes, and kept whole for
 * the command's {@link dev.vsm.spi.CommandRunner.Result} and error message.
 */
final class LineSplitter extends LogOutputStream {
    private final OutputListener.Channel channel;
    private final OutputListener listener;
    private final StringBuilder text = new StringBuilder();

    LineSplitter(OutputListener.Channel channel, OutputListener listener) {
        super(0, StandardCharsets.UTF_8);
        this.channel = requireNonNull(channel, "channel");
        this.listener = requireNonNull(listener, "listener");
    }

    @Override
    protected void processLine(String line, int level) {
        synchronized (text) {
            text.append(line).append('\n');
        }
        listener.line(channel, line);
    }

    String text() {
        synchronized (text) {
            return text.toString();
        }
    }
}
