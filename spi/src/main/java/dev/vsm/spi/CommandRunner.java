package dev.vsm.spi;

import java.util.Objects;

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
    final class Result {
        private final int exitCode;
        private final String stdout;
        private final String stderr;

        public Result(int exitCode, String stdout, String stderr) {
            this.exitCode = exitCode;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        public int exitCode() {
            return exitCode;
        }

        public String stdout() {
            return stdout;
        }

        public String stderr() {
            return stderr;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Result that
                            && exitCode == that.exitCode
                            && Objects.equals(stdout, that.stdout)
                            && Objects.equals(stderr, that.stderr);
        }

        @Override
        public int hashCode() {
            return Objects.hash(exitCode, stdout, stderr);
        }

        @Override
        public String toString() {
            return "Result[exitCode=" + exitCode + ", stdout=" + stdout + ", stderr=" + stderr + "]";
        }
    }
}
