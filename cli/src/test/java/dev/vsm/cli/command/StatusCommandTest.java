package dev.vsm.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.engine.StorageManager.StatusRow;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StorageStatus.MetadataUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
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

    @Test
    void thePercentColumnIsWhatTheFormatterPrints() {
        List<Double> values = new ArrayList<>(List.of(
                0.0,
                0.005,
                0.015,
                0.125,
                0.995,
                1.0 / 3,
                2.0 / 3,
                12.345,
                12.355,
                99.995,
                99.9949999,
                100.0,
                150.0,
                1e-7,
                1e7,
                123456.785,
                -5.0));
        SplittableRandom random = new SplittableRandom(20261201);
        for (int i = 0; i < 100_000; i++) {
            long total = 1 + random.nextLong(1L << (1 + random.nextInt(50)));
            long used = random.nextLong(total + 1);
            values.add(used * 100.0 / total);
            values.add(random.nextInt(100_000) / 1000.0 + 0.005);
        }
        for (double p : values) {
            assertThat(StatusCommand.percentColumn(p)).as("%s", p).isEqualTo(String.format("% 7.2f%%", p));
        }
    }

    @Test
    void theTableIsPvesmsPrintfLayout() {
        List<StatusRow> rows = List.of(
                new StatusRow(
                        "local",
                        "dir",
                        Set.of(ContentType.IMAGES),
                        true,
                        false,
                        StorageStatus.of(1L << 40, 123_456_789L, (1L << 40) - 123_456_789L, true)),
                new StatusRow(
                        "a-much-longer-name",
                        "lvmthin",
                        Set.of(ContentType.IMAGES),
                        true,
                        false,
                        StorageStatus.of(0, 0, 0, false)),
                new StatusRow(
                        "off", "lvm", Set.of(ContentType.IMAGES), false, false, StorageStatus.of(0, 0, 0, false)));
        StringBuilder expected = new StringBuilder();
        int w = "a-much-longer-name".length() + 1;
        expected.append(String.format(
                "%-" + w + "s %10s %10s %15s %15s %15s %8s%n",
                "Name",
                "Type",
                "Status",
                "Total (KiB)",
                "Used (KiB)",
                "Available (KiB)",
                "%"));
        expected.append(String.format(
                "%-" + w + "s %10s %10s %15d %15d %15d %s%n",
                "local",
                "dir",
                "active",
                (1L << 40) / 1024,
                123_456_789L / 1024,
                ((1L << 40) - 123_456_789L) / 1024,
                String.format("% 7.2f%%", 123_456_789L * 100.0 / (1L << 40))));
        expected.append(String.format(
                "%-" + w + "s %10s %10s %15d %15d %15d %s%n",
                "a-much-longer-name",
                "lvmthin",
                "inactive",
                0,
                0,
                0,
                String.format("% 7.2f%%", 0.0)));
        expected.append(String.format(
                "%-" + w + "s %10s %10s %15d %15d %15d %s%n",
                "off",
                "lvm",
                "disabled",
                0,
                0,
                0,
                String.format("%8s", "N/A")));
        assertThat(StatusCommand.table(rows)).isEqualTo(expected.toString());
        assertThat(StatusCommand.table(List.of()))
                .isEqualTo(String.format(
                        "%-1s %10s %10s %15s %15s %15s %8s%n",
                        "Name", "Type", "Status", "Total (KiB)", "Used (KiB)", "Available (KiB)", "%"));
    }
}
