package dev.vsm.plugin.dir;

import dev.vsm.spi.Console;
import java.util.ArrayList;
import java.util.List;

/** A console that keeps what it is told, for assertions. */
final class RecordingConsole implements Console {
    final List<String> infos = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();

    @Override
    public synchronized void info(String line) {
        infos.add(line);
    }

    @Override
    public synchronized void warn(String line) {
        warnings.add(line);
    }
}
