package dev.vsm.spi;

import java.nio.file.Path;

/**
 * File-system changes made for a plugin. Under {@code --dry-run} each is printed as a
 * {@code + ...} line and not made. Reading (exists, list, stat) a plugin does itself with
 * {@code java.nio.file}.
 */
public interface HostFiles {
    /** {@code mkdir -p}, with mode 0755 for new directories (minus the umask). */
    void createDirectories(Path dir);

    /** Removes a file; fails when it cannot. */
    void delete(Path file);

    /** Removes a directory if it is empty; returns whether it was removed. Never fails. */
    boolean deleteIfEmpty(Path dir);

    /** Renames, refusing to replace an existing target. */
    void move(Path from, Path to);

    /** chmod 0444. */
    void makeReadOnly(Path file);
}
