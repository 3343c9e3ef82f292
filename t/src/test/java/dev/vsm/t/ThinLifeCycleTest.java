package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.testing.DeviceMapper;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.LoopVolumeGroup;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole thin life cycle for real, through cli/vsm: lvm2 with activation on a loop VG, a real
 * thin pool made by lvm2, and thin volumes, snapshots, rollback, a base volume, a linked clone,
 * pool usage and the over-provisioning guard, with data written and read back through the
 * device nodes.
 *
 * <p>It needs device-mapper in the kernel. Where there is none (these machines), it reports
 * itself skipped with the reason, also under {@code CI=true}: it is the only test that may skip
 * there ({@link DeviceMapper#requireOrSkip()}); everything it covers that lvm2 can do without the
 * kernel is tested in {@link ThinWalkThroughTest} on pools written into the VG's metadata.
 */
class ThinLifeCycleTest {
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path sandbox;

    private LoopVolumeGroup vg;
    private Vsm vsm;

    /** Per test, not per class: surefire counts a class skipped in {@code @BeforeAll} as no tests at all. */
    @BeforeEach
    void setUp() {
        HostTools.require("LVM thin pools on loop devices", "/sbin/lvm");
        DeviceMapper.requireOrSkip();
        HostTools.require("activating LVM thin pools (thin-provisioning-tools)", "/usr/sbin/thin_check");
        vg = LoopVolumeGroup.ofMiB(160).withActivation().create();
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "64m", "-n", "data", vg.name());
        vsm = ThinSandbox.vsm(sandbox, vg);
    }

    @AfterEach
    void tearDown() {
        if (vg != null) {
            vg.close();
        }
    }

    private Path dev(String lv) {
        return Path.of("/dev", vg.name(), lv);
    }

    private String attr(String lv) {
        return vg.lvm("lvs", "--noheadings", "-o", "lv_attr", vg.name() + "/" + lv).strip();
    }

    @Test
    void allocSnapshotRollbackBaseCloneFree() throws IOException {
        assertThat(vsm.run("alloc", "thin", "100", "", "16M").ok().out()).isEqualTo("successfully created 'thin:vm-100-disk-0'\n");
        assertThat(attr("vm-100-disk-0")).startsWith("Vwi-a");
        byte[] before = pattern((byte) 1, 4 * MIB);
        write(dev("vm-100-disk-0"), before);

        JsonNode status = vsm.run("status", "--output-format", "json").ok().json().get(0);
        assertThat(status.get("active").asInt()).isEqualTo(1);
        assertThat(status.get("total").asLong()).isEqualTo(64L * MIB);
        assertThat(status.get("used").asLong()).isGreaterThanOrEqualTo(4L * MIB);
        assertThat(status.get("metadata_used").asLong()).isPositive();
        assertThat(status.get("metadata_size").asLong()).isPositive();

        vsm.run("snapshot", "thin:vm-100-disk-0", "s1").ok();
        assertThat(attr("snap_vm-100-disk-0_s1")).startsWith("Vri").endsWith("k");
        write(dev("vm-100-disk-0"), pattern((byte) 2, 4 * MIB));
        assertThat(vsm.run("rollback", "thin:vm-100-disk-0", "s1").ok().out())
                .isEqualTo("rolled back 'thin:vm-100-disk-0' to snapshot 's1'\n");
        vsm.run("snapshot-delete", "thin:vm-100-disk-0", "s1").ok();
        assertThat(vg.lvNames()).doesNotContain("snap_vm-100-disk-0_s1");
        vg.lvm("lvchange", "-ay", "-K", vg.name() + "/vm-100-disk-0");
        assertThat(read(dev("vm-100-disk-0"), before.length)).as("the data of snapshot s1 after the rollback").isEqualTo(before);

        vsm.run("alloc", "thin", "101", "", "8M").ok();
        assertThat(vsm.run("create-base", "thin:vm-101-disk-0").ok().out())
                .isEqualTo("successfully created base volume 'thin:base-101-disk-0'\n");
        assertThat(attr("base-101-disk-0")).matches("Vri-[^a].tz-k");
        assertThat(vsm.run("clone", "thin:base-101-disk-0", "102").ok().out())
                .isEqualTo("successfully created linked clone 'thin:vm-102-disk-0'\n");
        assertThat(attr("vm-102-disk-0")).startsWith("Vwi");
        assertThat(vsm.run("list", "thin").ok().lines()).hasSize(4);

        vsm.run("snapshot", "thin:vm-100-disk-0", "s2").ok();
        vsm.run("free", "thin:vm-100-disk-0").ok();
        vsm.run("free", "thin:vm-102-disk-0").ok();
        vsm.run("free", "thin:base-101-disk-0").ok();
        assertThat(vg.lvNames()).containsExactly("data");
    }

    @Test
    void theOverprovisionGuardOnARealPool() {
        Vsm guarded = ThinSandbox.vsm(sandbox, vg, "max-overprovision: 1");
        guarded.run("alloc", "thin", "100", "", "48M").ok();
        Vsm.Result r = guarded.run("alloc", "thin", "100", "", "20M");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("would add up to 71303168 bytes (now 50331648), more than max-overprovision 1 x the pool size 67108864 bytes");
        assertThat(vg.lvNames()).containsExactly("data", "vm-100-disk-0");
        guarded.run("alloc", "thin", "100", "", "16M").ok();
    }

    @Test
    void statusWarnsWhenThePoolIsOverEightyPercentFull() throws IOException {
        vsm.run("alloc", "thin", "100", "", "60M").ok();
        assertThat(vsm.run("status").ok().err()).isEmpty();
        write(dev("vm-100-disk-0"), pattern((byte) 3, 56 * MIB)); // 87.5% of the pool's 64 MiB
        Vsm.Result text = vsm.run("status").ok();
        assertThat(text.err()).startsWith("warning: storage 'thin': thin pool " + vg.name() + "/data data is 8")
                .contains("% full (warning above 80%)");
        JsonNode row = vsm.run("status", "--output-format", "json").ok().json().get(0);
        assertThat(row.get("warnings")).hasSize(1);
        assertThat(row.get("used").asLong()).isGreaterThanOrEqualTo(56L * MIB);
    }

    @Test
    void scanFindsTheRealPool() {
        assertThat(vsm.run("scan", "lvmthin", vg.name()).ok().out()).isEqualTo("data\n");
        assertThat(attr("data")).as("an active thin pool").startsWith("twi-a");
    }

    private static byte[] pattern(byte value, int size) {
        byte[] data = new byte[size];
        Arrays.fill(data, value);
        return data;
    }

    /** Writes through the device node and waits for it to reach the device. */
    private static void write(Path device, byte[] data) throws IOException {
        Path file = Files.createTempFile("vsm-thin-data", ".bin");
        try {
            Files.write(file, data);
            HostTools.mustRun(Map.of(), "dd", "if=" + file, "of=" + device, "bs=1M", "conv=fsync,notrunc", "status=none");
        } finally {
            Files.delete(file);
        }
    }

    private static byte[] read(Path device, int length) throws IOException {
        try (InputStream in = Files.newInputStream(device)) {
            return in.readNBytes(length);
        }
    }
}
