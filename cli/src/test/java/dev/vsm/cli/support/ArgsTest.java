package dev.vsm.cli.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ArgsTest {
    @ParameterizedTest
    @CsvSource({"1024, 1024", "4M, 4096", "4G, 4194304", "1T, 1073741824", "8K, 8", "8k, 8", "2048B, 2", "2g, 2097152"})
    void sizesAreKibLikePvesmWithBinaryUnits(String text, long kib) {
        assertThat(Args.sizeKib(text, false)).isEqualTo(kib);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "abc", "4X", "1.5G", "", "1000B", "99999999999999999999", "17179869184T", " 4G"})
    void badSizesAreBadInput(String text) {
        assertThatThrownBy(() -> Args.sizeKib(text, false))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("size: ")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "abc", "99", "0100", "1000000000", "-5", "1e3"})
    void vmidsArePvesOwn(String text) {
        assertThatThrownBy(() -> Args.vmid(text))
                .hasMessageStartingWith("vmid: value does not look like a valid VM ID");
    }

    @ParameterizedTest
    @ValueSource(strings = {"100", "999999999", "4711"})
    void goodVmids(String text) {
        assertThat(Args.vmid(text)).isEqualTo(Integer.parseInt(text));
    }
}
