package dev.vsm.exec;

import dev.vsm.spi.Command;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;

/**
 * Test helper run in a second JVM: streams {@code sh -c <script>} through the runner, echoing
 * each line it hears, and prints the runner's error (class and message) if it fails.
 */
public final class StreamingChildMain {
    private StreamingChildMain() {}

    public static void main(String[] args) {
        Console console = new Console() {
            @Override
            public void info(String line) {
                System.out.println(line);
            }

            @Override
            public void warn(String line) {
                System.out.println(line);
            }
        };
        try {
            new ProcessCommandRunner(false, console).stream(Command.of("sh", "-c", args[0]), (channel, line) -> {
                System.out.println(channel + " " + line);
                System.out.flush();
            });
            System.out.println("finished");
        } catch (StorageException e) {
            System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
