package dev.vsm.testing;

import dev.vsm.spi.Console;
import java.util.ArrayList;
import java.util.List;

/** A console that keeps what it is told, in order, for assertions. */
public final class RecordingConsole implements Console {
    private final List<String> infos = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    @Override
    public synchronized void info(String line) {
        infos.add(line);
    }

    @Override
    public synchronized void warn(String line) {
        warnings.add(line);
    }

    public synchronized List<String> infos() {
        return List.copyOf(infos);
    }

    public synchronized List<String> warnings() {
        return List.copyOf(warnings);
    }

    /** The {@code + argv} lines a dry run printed. */
    public synchronized List<String> commands() {
        return infos.stream()
                .filter(l -> l.startsWith("+ "))
                .map(l -> l.substring(2))
                .toList();
    }
}
