package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ImportTagTest {
    @Test
    void aFreshTagParsesBackAndNamesItsClaim() {
        ImportTag tag = ImportTag.fresh("node-1.example.org");
        assertThat(tag.tag()).matches("vsm-importing\\.[0-9a-f]{16}\\.node-1_example_org");
        assertThat(ImportTag.parse(tag.tag())).contains(tag);
        assertThat(tag.claimName()).isEqualTo("lvm-import-" + tag.token());
        assertThat(ImportTag.fresh("n").token())
                .isNotEqualTo(ImportTag.fresh("n").token());
    }

    @Test
    void onlyWholeImportTagsMarkAnLv() {
        LogicalVolume plain = lv(List.of("pve-vm-100"));
        LogicalVolume importing = lv(List.of("pve-vm-100", "vsm-importing.0123456789abcdef.pve1"));
        assertThat(ImportTag.isImporting(plain)).isFalse();
        assertThat(ImportTag.isImporting(importing)).isTrue();
        assertThat(ImportTag.of(importing).orElseThrow().node()).isEqualTo("pve1");
        assertThat(ImportTag.parse("vsm-importing.0123.pve1")).isEmpty();
        assertThat(ImportTag.parse("x-vsm-importing.0123456789abcdef.pve1")).isEmpty();
    }

    private static LogicalVolume lv(List<String> tags) {
        return new LogicalVolume(
                "vg", "vm-100-disk-0", 4 << 20, "-wi-------", "", 0, 0, 0, "uuid", tags, 0, null, false);
    }
}
