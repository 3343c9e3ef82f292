package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** pve's {@code prune-backups} format with its validator ({@code validate_prune_backups}). */
class PruneOptionsTest {
    @Test
    void countsAreKept() {
        assertThat(PruneOptions.parse("keep-last=3,keep-daily=0,keep-weekly=2"))
                .isEqualTo(Map.of("keep-last", 3L, "keep-daily", 0L, "keep-weekly", 2L));
    }

    @Test
    void nothingPositiveMeansKeepAll() {
        assertThat(PruneOptions.parse("keep-last=0")).isEqualTo(Map.of("keep-all", 1L));
        assertThat(PruneOptions.parse("keep-all=0")).isEqualTo(Map.of("keep-all", 1L));
        assertThat(PruneOptions.parse("")).isEqualTo(Map.of("keep-all", 1L));
        assertThat(PruneOptions.parse("keep-all=yes,keep-last=0")).isEqualTo(Map.of("keep-all", 1L));
    }

    @Test
    void keepAllFalseWithCountsIsDropped() {
        assertThat(PruneOptions.parse("keep-all=0,keep-yearly=1")).isEqualTo(Map.of("keep-yearly", 1L));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "keep-bogus=3|invalid key in comma-separated list property: keep-bogus",
                "keep-last=1,keep-last=2|duplicate key in comma-separated list property: keep-last",
                "keep-last|value without key, but schema does not define a default key",
                "=3|missing key in comma-separated list property",
                "keep-last=x|keep-last: type check ('integer') failed - got 'x'",
                "keep-last=-1|keep-last: value must have a minimum value of 0",
                "keep-all=maybe|keep-all: type check ('boolean') failed - got 'maybe'",
                "keep-all=1,keep-last=2|keep-all cannot be set together with other options.",
            })
    void badValuesAreRefusedInPvesWords(String value, String message) {
        assertThatThrownBy(() -> PruneOptions.parse(value))
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }
}
