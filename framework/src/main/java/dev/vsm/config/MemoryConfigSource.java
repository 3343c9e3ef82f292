package dev.vsm.config;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/** A configuration kept in memory ({@link ConfigStore#inMemory}): edits replace these bytes, nothing is written to a file. */
final class MemoryConfigSource implements ConfigSource {
    /** How the configuration is named in messages. */
    static final String LABEL = "<in-memory configuration>";

    private final ReentrantLock lock = new ReentrantLock();
    private Stored stored;

    MemoryConfigSource(String yaml) {
        this.stored = new Stored(yaml.getBytes(StandardCharsets.UTF_8), 0);
    }

    @Override
    public String label() {
        return LABEL;
    }

    @Override
    public synchronized Optional<Stored> read() {
        return Optional.of(stored);
    }

    @Override
    public synchronized void write(Stored expected, byte[] bytes) {
        stored = new Stored(bytes, stored.version() + 1);
    }

    @Override
    public <T> T locked(Supplier<T> work) {
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<String> describeWrite(Stored expected) {
        return List.of(DryRunLines.line("write", LABEL));
    }
}
