package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.lvm.VolumeGroup.PhysicalVolume;
import org.junit.jupiter.api.Test;

/** vgs reports as lvm2 2.03 prints them, and the odd ones. */
class VgsReportTest {
    @Test
    void recordedReport() {
        // lvm2 2.03.16 on a 64 MiB loop device, one 4 MiB LV
        VgsReport r = VgsReport.parse("  vsmexp:62914560:58720256:1\n");
        assertThat(r.groups()).containsExactly(new VolumeGroup("vsmexp", 62914560, 58720256, 1, java.util.List.of()));
        assertThat(r.group("vsmexp").orElseThrow().used()).isEqualTo(4194304);
        assertThat(r.group("other")).isEmpty();
    }

    @Test
    void severalGroupsInReportOrder() {
        VgsReport r = VgsReport.parse("  pve:499570524160:16882073600:5\n  data:1000203837440:0:12\n");
        assertThat(r.groups()).extracting(VolumeGroup::name).containsExactly("pve", "data");
        assertThat(r.group("data").orElseThrow().lvCount()).isEqualTo(12);
    }

    @Test
    void extraSpacesAroundFields() {
        VgsReport r = VgsReport.parse("\t  vg0 : 1048576 :  524288:3   \n");
        assertThat(r.group("vg0").orElseThrow())
                .isEqualTo(new VolumeGroup("vg0", 1048576, 524288, 3, java.util.List.of()));
    }

    @Test
    void missingTrailingColumnsReadAsZero() {
        assertThat(VgsReport.parse("  vg0:1048576:524288\n")
                        .group("vg0")
                        .orElseThrow()
                        .lvCount())
                .isZero();
        assertThat(VgsReport.parse("  vg0:1048576:524288:\n")
                        .group("vg0")
                        .orElseThrow()
                        .lvCount())
                .isZero();
    }

    @Test
    void warningsAndJunkAreSkipped() {
        String out = """
                  WARNING: Not using device /dev/sdc for PV abc.
                  vg0:1048576:524288:3
                  : : :
                  bad:size:free:count

                """;
        assertThat(VgsReport.parse(out).groups()).extracting(VolumeGroup::name).containsExactly("vg0");
        assertThat(VgsReport.parse("").groups()).isEmpty();
    }

    @Test
    void physicalVolumesAreGathered() {
        String out =
                "  vg0:2097152:1048576:2:/dev/sdb:1048576:524288\n  vg0:2097152:1048576:2:/dev/sdc:1048576:524288\n"
                        + "  vg1:1048576:1048576:0:/dev/loop3:1048576:1048576\n";
        VgsReport r = VgsReport.parse(out);
        assertThat(r.groups()).hasSize(2);
        assertThat(r.group("vg0").orElseThrow().pvs())
                .containsExactly(
                        new PhysicalVolume("/dev/sdb", 1048576, 524288),
                        new PhysicalVolume("/dev/sdc", 1048576, 524288));
        assertThat(r.group("vg1").orElseThrow().pvs())
                .extracting(PhysicalVolume::name)
                .containsExactly("/dev/loop3");
    }
}
