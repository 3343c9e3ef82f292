package dev.vsm.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VolumeWriterTest {
    private static final int BLOCK = VolumeWriter.BLOCK;

    @TempDir
    Path dir;

    /** Bytes allocated to a file: {@code stat -c %b} (512-byte blocks). */
    private static long allocated(Path file) throws IOException {
        Process p = new ProcessBuilder("stat", "-c", "%b", file.toString()).start();
        return Long.parseLong(new String(p.getInputStream().readAllBytes()).strip()) * 512;
    }

    @Test
    void zeroBlocksStayHolesInAFileAndItGetsItsFullLength() throws IOException {
        Path file = Files.write(dir.resolve("vm.raw"), new byte[3 * BLOCK]);
        Files.write(file, filled(3 * BLOCK, (byte) 7)); // old content, to be replaced
        byte[] data = filled(BLOCK, (byte) 1);
        byte[] zeros = new byte[BLOCK];
        try (VolumeWriter w = VolumeWriter.open(file, false)) {
            w.write(zeros, BLOCK);
            w.write(data, BLOCK);
            w.write(zeros, BLOCK);
            w.write(zeros, BLOCK);
            w.finish();
            assertThat(w.position()).isEqualTo(4L * BLOCK);
        }
        byte[] back = Files.readAllBytes(file);
        assertThat(back).hasSize(4 * BLOCK);
        assertThat(Arrays.copyOfRange(back, 0, BLOCK)).isEqualTo(zeros);
        assertThat(Arrays.copyOfRange(back, BLOCK, 2 * BLOCK)).isEqualTo(data);
        assertThat(Arrays.copyOfRange(back, 2 * BLOCK, 4 * BLOCK)).isEqualTo(new byte[2 * BLOCK]);
        assertThat(allocated(file))
                .as("only the data block and the last byte's block are allocated")
                .isLessThan(3L * BLOCK);
    }

    @Test
    void nothingIsCreatedAndOnlyFilesOrDevicesAreWritten() {
        assertThatThrownBy(() -> VolumeWriter.open(dir.resolve("missing"), true))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("is neither a file nor a block device");
        assertThat(dir.resolve("missing")).doesNotExist();
        assertThatThrownBy(() -> VolumeWriter.open(dir, true))
                .hasMessageContaining("is neither a file nor a block device");
        assertThatThrownBy(() -> VolumeWriter.open(Path.of("/dev/null"), true))
                .hasMessageContaining("is neither a file nor a block device");
    }

    @Test
    void allZero() {
        byte[] b = new byte[BLOCK];
        assertThat(VolumeWriter.allZero(b, BLOCK)).isTrue();
        b[BLOCK - 1] = 1;
        assertThat(VolumeWriter.allZero(b, BLOCK)).isFalse();
        assertThat(VolumeWriter.allZero(b, BLOCK - 1)).isTrue();
    }

    private static byte[] filled(int n, byte value) {
        byte[] b = new byte[n];
        Arrays.fill(b, value);
        return b;
    }
}
