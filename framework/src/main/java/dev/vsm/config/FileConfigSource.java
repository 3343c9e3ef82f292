package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.lock.FileLocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** The configuration file: read whole, written atomically ({@link AtomicFile}) under the {@value ConfigStore#LOCK} file lock. */
final class FileConfigSource implements ConfigSource {
    private final Path file;
    private final FileLocks locks;
    private final Duration lockTimeout;

    FileConfigSource(Path file, FileLocks locks, Duration lockTimeout) {
        this.file = requireNonNull(file, "file");
        this.locks = requireNonNull(locks, "locks");
        this.lockTimeout = requireNonNull(lockTimeout, "lockTimeout");
    }

    @Override
    public String label() {
        return file.toString();
    }

    @Override
    public Optional<Stored> read() {
        return ConfigReader.readFile(file).map(bytes -> new Stored(bytes, 0));
    }

    @Override
    public void write(Stored expected, byte[] bytes) {
        AtomicFile.removeStaleTemporaries(file);
        AtomicFile.write(file, bytes);
    }

    @Override
    public <T> T locked(Supplier<T> work) {
        return locks.withLock(ConfigStore.LOCK, lockTimeout, work);
    }

    @Override
    public List<String> describeWrite(Stored expected) {
        return DryRunLines.writeFile(file);
    }
}
