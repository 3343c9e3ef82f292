package dev.vsm.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class SizeHeaderTest {
    @Test
    void eightBytesLittleEndian() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SizeHeader.write(out, 0x0102030405L);
        assertThat(out.toByteArray()).containsExactly(5, 4, 3, 2, 1, 0, 0, 0);
        assertThat(SizeHeader.read(new ByteArrayInputStream(out.toByteArray()))).isEqualTo(0x0102030405L);
    }

    @Test
    void aShortHeaderIsPvesMessage() {
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(new byte[] {1, 2, 3})))
                .isInstanceOf(StorageException.class)
                .hasMessage("import: no size found in export header, aborting.");
    }

    @Test
    void aFileMayBeEmpty() throws IOException {
        assertThat(SizeHeader.read(new ByteArrayInputStream(new byte[8]), 0)).isZero();
        byte[] huge = {0, 0, 0, 0, 0, 0, 0, (byte) 0x80};
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(huge), 0))
                .hasMessage("import: the size header says 9223372036854775808 bytes: not a volume size");
    }

    @Test
    void aSizeThatIsNoVolumeSizeIsRefused() {
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(new byte[8])))
                .hasMessage("import: the size header says 0 bytes: not a volume size");
        byte[] huge = {0, 0, 0, 0, 0, 0, 0, (byte) 0x80};
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(huge)))
                .hasMessage("import: the size header says 9223372036854775808 bytes: not a volume size");
        byte[] largest = {-1, -1, -1, -1, -1, -1, -1, 0x7f}; // 2^63 - 1: "internal error", exit 1
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(largest)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("import: the size header says 9223372036854775807 bytes: more than any image can hold"
                        + " (at most 9223372036854774784)");
        byte[] pastTheLastKib = {1, -4, -1, -1, -1, -1, -1, 0x7f}; // 2^63 - 1023: 2^53 KiB overflowed qemu-img's size
        assertThatThrownBy(() -> SizeHeader.read(new ByteArrayInputStream(pastTheLastKib)))
                .hasMessageContaining("more than any image can hold");
    }
}
