package dev.vsm.spi;

/**
 * Everything a plugin needs from the engine, handed over when a storage is opened. A plugin
 * reaches for nothing else (no globals, no {@code ProcessBuilder}), so that dry-run and tests
 * can hand it a recording context.
 */
public interface StorageContext {
    CommandRunner commands();

    HostFiles files();

    QemuImg qemuImg();

    /** The zero-out engine (LVM saferemove, {@code vsm wipe}). */
    ZeroOut zeroOut();

    Console console();

    /** The storage locks, for work a plugin does after the engine released the storage lock. */
    StorageLocks locks();

    /** True under {@code --dry-run}: changes are printed, not made. */
    boolean dryRun();

    /** This node's name (the host name unless configured). */
    String nodeName();
}
