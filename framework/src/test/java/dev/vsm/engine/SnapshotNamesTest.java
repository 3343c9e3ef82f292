package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import org.junit.jupiter.api.Test;

/** pve's snapshot names ({@code pve-configid}, at most 40 characters, not {@code current}). */
class SnapshotNamesTest {
    @Test
    void validNames() {
        for (String name : new String[] {"s1", "before-upgrade", "Snap_2", "a" + "b".repeat(39)}) {
            assertThatCode(() -> SnapshotNames.check(name)).as(name).doesNotThrowAnyException();
        }
    }

    @Test
    void invalidNamesAreBadInput() {
        for (String name : new String[] {"", "s", "1st", "-x", "with space", "a.b", "a/b", "a" + "b".repeat(40)}) {
            assertThatThrownBy(() -> SnapshotNames.check(name))
                    .as(name)
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith("invalid snapshot name '")
                    .extracting(e -> ((StorageException) e).kind())
                    .isEqualTo(StorageException.Kind.BAD_INPUT);
        }
        assertThatThrownBy(() -> SnapshotNames.check("current")).hasMessageContaining("'current' is reserved");
    }
}
