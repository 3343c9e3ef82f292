package dev.vsm.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.engine.StorageManager.StatusRow;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StorageStatus.MetadataUsage;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What {@code vsm status} gives in JSON: pve's fields, plus metadata use and warnings when a storage has them. */
class StatusCommandTest {
    @Test
    void aThinPoolsMetadataAndWarnings() {
        StorageStatus pool = StorageStatus.of(1000, 850, 150, true)
                .withMetadata(MetadataUsage.of(10, 100))
                .withWarnings(List.of("nearly full"));
        Map<String, Object> json =
                StatusCommand.json(new StatusRow("thin", "lvmthin", Set.of(ContentType.IMAGES), true, false, pool));
        assertThat(json)
                .containsEntry("total", 1000L)
                .containsEntry("used", 850L)
                .containsEntry("avail", 150L)
                .containsEntry("used_fraction", 0.85)
                .containsEntry("metadata_used", 10L)
                .containsEntry("metadata_size", 100L)
                .containsEntry("warnings", List.of("nearly full"));
    }

    @Test
    void storagesWithoutMetadataSpaceHaveNoMetadataFields() {
        Map<String, Object> json = StatusCommand.json(new StatusRow(
                "local", "dir", Set.of(ContentType.IMAGES), true, false, StorageStatus.of(1000, 10, 990, true)));
        assertThat(json).doesNotContainKeys("metadata_used", "metadata_size").containsEntry("warnings", List.of());
    }
}
