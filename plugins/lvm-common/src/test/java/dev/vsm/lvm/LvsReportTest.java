package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** lvs reports as lvm2 2.03 prints them, and the odd ones. */
class LvsReportTest {
    /** Recorded on this project's test machines (lvm2 2.03.16, activation disabled: state X, unmapped). */
    private static final String RECORDED = """
              vsmexp:vm-100-disk-0:4194304:-wi-XX----:::::4rOf2a-t59I-nvaW-fd1s-ftHT-6Ym1-CeE1Wd:pve-vm-100::1796034965:unknown
              vsmexp:del-vm-100-disk-1:8388608:-wi-XX----:::::Qm3kDs-0000-nvaW-fd1s-ftHT-6Ym1-CeE1Wd:pve-vm-100::1796034999:unknown
            """;

    @Test
    void recordedReport() {
        LvsReport r = LvsReport.parse(RECORDED);
        LogicalVolume lv = r.find("vsmexp", "vm-100-disk-0").orElseThrow();
        assertThat(lv.size()).isEqualTo(4194304);
        assertThat(lv.attr()).isEqualTo("-wi-XX----");
        assertThat(lv.type()).isEqualTo('-');
        assertThat(lv.state()).isEqualTo('X');
        assertThat(lv.active()).isFalse();
        assertThat(lv.tags()).containsExactly("pve-vm-100");
        assertThat(lv.hasTag("pve-vm-100")).isTrue();
        assertThat(lv.uuid()).isEqualTo("4rOf2a-t59I-nvaW-fd1s-ftHT-6Ym1-CeE1Wd");
        assertThat(lv.poolLv()).isEmpty();
        assertThat(lv.metadataSize()).isZero();
        assertThat(lv.ctime()).isEqualTo(1796034965L);
        assertThat(lv.mapped()).isFalse();
        assertThat(lv.mappedWithoutLiveTable())
                .as("X without a kernel device: activation disabled")
                .isFalse();
        assertThat(r.names("vsmexp")).containsExactly("vm-100-disk-0", "del-vm-100-disk-1");
        assertThat(r.inGroup("other")).isEmpty();
    }

    @Test
    void activeVolumeAndThinPool() {
        String out = """
                  pve:data:107374182400:twi-aotz--::12.50:1.20::Hx1y-uuid::1073741824:1700000000:active
                  pve:vm-101-disk-0:34359738368:Vwi-a-tz--:data:25.00:::Ab-uuid:pve-vm-101::1700000100:active
                  pve:root:10737418240:-wi-ao----:::::Cd-uuid:::1690000000:active
                """;
        LvsReport r = LvsReport.parse(out);
        LogicalVolume pool = r.find("pve", "data").orElseThrow();
        assertThat(pool.isThinPool()).isTrue();
        assertThat(pool.active()).isTrue();
        assertThat(pool.used()).isEqualTo(13421772800L);
        assertThat(pool.metadataSize()).isEqualTo(1073741824L);
        assertThat(pool.metadataUsed()).isEqualTo(12884901L);
        LogicalVolume thin = r.find("pve", "vm-101-disk-0").orElseThrow();
        assertThat(thin.type()).isEqualTo('V');
        assertThat(thin.poolLv()).isEqualTo("data");
        assertThat(thin.dataPercent()).isEqualTo(25.0);
        assertThat(r.find("pve", "root").orElseThrow().tags()).isEmpty();
        assertThat(r.find("pve", "root").orElseThrow().open())
                .as("-wi-ao: open")
                .isTrue();
        assertThat(thin.open()).isFalse();
    }

    /**
     * Devices a SIGKILL in lvm2's activation left (recorded in the guest, lvm2 2.03.16): created
     * without a table (lvm2 cannot read its status: X), or with a table loaded and never resumed.
     */
    @Test
    void devicesWithoutALiveTable() {
        LvsReport r = LvsReport.parse("""
                  vx:none:4194304:Vwi-XXtz--:pool::::u1:::1700000000:active
                  vx:loaded:4194304:Vwi-i-tz--:pool:0.00:::u2:::1700000000:active
                  vx:active:4194304:Vwi-a-tz--:pool:0.00:::u3:::1700000000:active
                  vx:inactive:4194304:Vwi---tz--:pool:0.00:::u4:::1700000000:
                """);
        assertThat(r.volumes())
                .filteredOn(LogicalVolume::mappedWithoutLiveTable)
                .extracting(LogicalVolume::name)
                .containsExactly("none", "loaded");
        assertThat(r.find("vx", "active").orElseThrow().mapped()).isTrue();
    }

    @Test
    void extraSpacesAndSeveralTags() {
        LvsReport r = LvsReport.parse(
                "   vg0 : vm-100-disk-0 : 1048576 : -wi-a----- ::::: u : pve-vm-100, other ,x : : 42  \n");
        LogicalVolume lv = r.find("vg0", "vm-100-disk-0").orElseThrow();
        assertThat(lv.size()).isEqualTo(1048576);
        assertThat(lv.active()).isTrue();
        assertThat(lv.tags()).containsExactly("pve-vm-100", "other", "x");
        assertThat(lv.ctime()).isEqualTo(42L);
    }

    @Test
    void missingTrailingColumns() {
        LvsReport r = LvsReport.parse("  vg0:vm-100-disk-0:1048576:-wi-a-----\n  vg0:vm-100-disk-1:2097152\n");
        LogicalVolume lv = r.find("vg0", "vm-100-disk-0").orElseThrow();
        assertThat(lv.tags()).isEmpty();
        assertThat(lv.ctime()).isNull();
        assertThat(lv.mapped()).isFalse();
        assertThat(lv.uuid()).isEmpty();
        LogicalVolume bare = r.find("vg0", "vm-100-disk-1").orElseThrow();
        assertThat(bare.attr()).isEmpty();
        assertThat(bare.type()).isEqualTo('?');
        assertThat(bare.active()).isFalse();
    }

    @Test
    void tagsHoldingTheSeparator() {
        LvsReport r = LvsReport.parse("  vg0:vm-100-disk-0:1048576:-wi-------:::::u:pve-vm-100,a:b:c,d::77:\n");
        LogicalVolume lv = r.find("vg0", "vm-100-disk-0").orElseThrow();
        assertThat(lv.tags()).containsExactly("pve-vm-100", "a:b:c", "d");
        assertThat(lv.ctime()).isEqualTo(77L);
        assertThat(lv.metadataSize()).isZero();
        assertThat(lv.mapped()).isFalse();
    }

    @Test
    void linesWithoutNamesOrSizesAreSkipped() {
        String out = """
                  WARNING: Not using lvmetad because config setting use_lvmetad=0.
                  :vm-1-disk-0:1:-wi-------
                  vg0::1:-wi-------
                  vg0:vm-2-disk-0:lots:-wi-------
                  vg0:vm-3-disk-0:3:-wi-------
                """;
        assertThat(LvsReport.parse(out).volumes())
                .extracting(LogicalVolume::name)
                .containsExactly("vm-3-disk-0");
        assertThat(LvsReport.parse("").volumes()).isEmpty();
    }

    @Test
    void sizesWithAFractionAreRead() {
        assertThat(LvsReport.parse("vg0:a:4194304.00:-wi-------").volumes())
                .extracting(LogicalVolume::size)
                .isEqualTo(List.of(4194304L));
    }
}
