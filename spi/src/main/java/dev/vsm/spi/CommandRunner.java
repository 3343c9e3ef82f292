package dev.vsm.spi;

/**
 * Runs external commands for a plugin. Both methods throw {@link StorageException} (kind
 * FAILED) when the command cannot start, times out or exits non-zero.
 */
public interface CommandRunner {
    /** Runs a command that only reads (lvs, qemu-img info). It runs under {@code --dry-run} too. */
    Result query(Command command);

    /**
     * Runs a command that changes something. Under {@code --dry-run} it is printed as
     * {@code + <argv>} and not run; the result is then empty with exit status 0.
     */
    Result run(Command command);

    /** What a finished command printed. */
    record Result(int exitCode, String stdout, String stderr) {}
}
