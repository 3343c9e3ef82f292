package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole thin life cycle for real, through vsm, on a real kernel ({@link InGuest}: a qemu guest
 * with device-mapper): a thin pool made by lvm2 on a virtio disk, thin volumes, resize, rename,
 * snapshots, rollback, a base volume, linked clones of a base and of a snapshot, pool usage
 * against {@code lvs} and the over-provisioning guard, with data written and read back through
 * the device nodes. What lvm2 can do without the kernel is also tested, faster, in
 * {@link ThinWalkThroughTest} on pools written into a VG's metadata.
 */
@GuestTest
class ThinLifeCycleTest {
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(1400);

    @TempDir
    Path sandbox;

    private DiskVolumeGroup vg;
    private Vsm vsm;

    @BeforeEach
    void setUp() {
        vg = DiskVolumeGroup.create("/dev/vda");
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "64m", "-n", "data", vg.name());
        vsm = vsm();
    }

    @AfterEach
    void tearDown() {
        if (vg != null) {
            vg.close();
        }
    }

    private Vsm vsm(String... properties) {
        return vsmOnPool("data", properties);
    }

    private Vsm vsmOnPool(String pool, String... properties) {
        StringBuilder yaml = new StringBuilder("""
                storages:
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: %s
                """.formatted(vg.name(), pool));
        for (String p : properties) {
            yaml.append("    ").append(p).append('\n');
        }
        return new Vsm(sandbox).writeConfig(yaml.toString());
    }

    private Path dev(String lv) {
        return Path.of("/dev", vg.name(), lv);
    }

    private String attr(String lv) {
        return vg.field(lv, "lv_attr");
    }

    @Test
    void statusReportsThePoolAsLvsDoes() throws IOException {
        vsm.run("alloc", "thin", "100", "", "32M").ok();
        write(dev("vm-100-disk-0"), pattern((byte) 1, 20 * MIB));

        JsonNode status =
                vsm.run("status", "--output-format", "json").ok().json().get(0);
        long size = Long.parseLong(vg.field("data", "lv_size"));
        double dataPercent = Double.parseDouble(vg.field("data", "data_percent"));
        long metadataSize = Long.parseLong(vg.field("data", "lv_metadata_size"));
        double metadataPercent = Double.parseDouble(vg.field("data", "metadata_percent"));
        assertThat(status.get("active").asInt()).isEqualTo(1);
        assertThat(status.get("total").asLong()).isEqualTo(size).isEqualTo(64L * MIB);
        assertThat(dataPercent)
                .as("lvs data_percent after writing 20 of the pool's 64 MiB")
                .isBetween(31.0, 40.0);
        assertThat((double) status.get("used").asLong())
                .as("used, against lvs data_percent %s", dataPercent)
                .isCloseTo(size * dataPercent / 100, within(size * 0.0001));
        assertThat(status.get("metadata_size").asLong()).isEqualTo(metadataSize);
        assertThat((double) status.get("metadata_used").asLong())
                .as("metadata used, against lvs metadata_percent %s", metadataPercent)
                .isPositive()
                .isCloseTo(metadataSize * metadataPercent / 100, within(metadataSize * 0.0001));
    }

    @Test
    void allocResizeRenameSnapshotRollback() throws IOException {
        assertThat(vsm.run("alloc", "thin", "100", "", "16M").ok().out())
                .isEqualTo("successfully created 'thin:vm-100-disk-0'\n");
        assertThat(attr("vm-100-disk-0")).startsWith("Vwi-a");
        byte[] before = pattern((byte) 1, 4 * MIB);
        write(dev("vm-100-disk-0"), before);

        vsm.run("resize", "thin:vm-100-disk-0", "32M").ok();
        assertThat(vg.field("vm-100-disk-0", "lv_size")).isEqualTo(String.valueOf(32L * MIB));
        assertThat(HostTools.mustRun(
                                Map.of(),
                                "blockdev",
                                "--getsize64",
                                dev("vm-100-disk-0").toString())
                        .strip())
                .as("the active device's size after resize")
                .isEqualTo(String.valueOf(32L * MIB));

        assertThat(vsm.run("rename", "thin:vm-100-disk-0", "103").ok().out()).contains("thin:vm-103-disk-0");
        assertThat(vg.lvNames()).containsExactly("data", "vm-103-disk-0");
        assertThat(read(dev("vm-103-disk-0"), before.length))
                .as("the data after the rename")
                .isEqualTo(before);

        long taken = System.currentTimeMillis() / 1000;
        vsm.run("snapshot", "thin:vm-103-disk-0", "s1").ok();
        assertThat(attr("snap_vm-103-disk-0_s1")).startsWith("Vri").endsWith("k");
        write(dev("vm-103-disk-0"), pattern((byte) 2, 4 * MIB));

        // a VM manager's view of the snapshot: its LV as a layer, activated and deactivated on its own
        JsonNode layer = vsm.run("info", "thin:vm-103-disk-0", "--output-format", "json")
                .ok()
                .json()
                .get("layers")
                .get(0);
        assertThat(layer.get("name").asText()).isEqualTo("s1");
        assertThat(layer.get("file").asText())
                .isEqualTo(dev("snap_vm-103-disk-0_s1").toString());
        assertThat(layer.get("virtual-size").asLong()).isEqualTo(32L * MIB);
        assertThat(layer.get("timestamp").asLong())
                .as("lv_time")
                .isBetween(taken - 2, System.currentTimeMillis() / 1000 + 2);
        assertThat(vsm.run("activate", "thin:vm-103-disk-0", "--snapshot", "s1")
                        .ok()
                        .out())
                .isEqualTo("activated 'thin:vm-103-disk-0' snapshot 's1'\n");
        assertThat(attr("snap_vm-103-disk-0_s1")).startsWith("Vri-a");
        assertThat(read(dev("snap_vm-103-disk-0_s1"), before.length))
                .as("the snapshot's data")
                .isEqualTo(before);
        vsm.run("deactivate", "thin:vm-103-disk-0", "--snapshot", "s1").ok();
        assertThat(attr("snap_vm-103-disk-0_s1")).startsWith("Vri--");
        assertThat(vsm.run("rollback", "thin:vm-103-disk-0", "s1").ok().out())
                .isEqualTo("rolled back 'thin:vm-103-disk-0' to snapshot 's1'\n");
        vsm.run("snapshot-delete", "thin:vm-103-disk-0", "s1").ok();
        assertThat(vg.lvNames()).containsExactly("data", "vm-103-disk-0");
        if (!Files.exists(dev("vm-103-disk-0"))) {
            vg.lvm("lvchange", "-ay", "-K", vg.name() + "/vm-103-disk-0");
        }
        assertThat(read(dev("vm-103-disk-0"), before.length))
                .as("the data of snapshot s1 after the rollback")
                .isEqualTo(before);

        vsm.run("free", "thin:vm-103-disk-0").ok();
        assertThat(vg.lvNames()).containsExactly("data");
    }

    @Test
    void baseAndClonesOfABaseAndOfASnapshot() throws IOException {
        vsm.run("alloc", "thin", "101", "", "8M").ok();
        byte[] baseData = pattern((byte) 5, 3 * MIB);
        write(dev("vm-101-disk-0"), baseData);
        assertThat(vsm.run("create-base", "thin:vm-101-disk-0").ok().out())
                .isEqualTo("successfully created base volume 'thin:base-101-disk-0'\n");
        assertThat(attr("base-101-disk-0")).as("read-only, activation skipped").matches("Vri-[^a].tz-k");
        assertThat(vsm.run("clone", "thin:base-101-disk-0", "102").ok().out())
                .isEqualTo("successfully created linked clone 'thin:vm-102-disk-0'\n");
        assertThat(attr("vm-102-disk-0")).startsWith("Vwi-a");
        assertThat(read(dev("vm-102-disk-0"), baseData.length))
                .as("the clone of the base holds the base's data")
                .isEqualTo(baseData);

        vsm.run("alloc", "thin", "100", "", "8M").ok();
        byte[] snapData = pattern((byte) 7, 2 * MIB);
        write(dev("vm-100-disk-0"), snapData);
        vsm.run("snapshot", "thin:vm-100-disk-0", "s2").ok();
        write(dev("vm-100-disk-0"), pattern((byte) 8, 2 * MIB));
        assertThat(vsm.run("clone", "thin:vm-100-disk-0", "104", "--snapshot", "s2")
                        .ok()
                        .out())
                .isEqualTo("successfully created linked clone 'thin:vm-104-disk-0'\n");
        assertThat(read(dev("vm-104-disk-0"), snapData.length))
                .as("the clone of snapshot s2 holds the snapshot's data")
                .isEqualTo(snapData);
        assertThat(vsm.run("list", "thin", "--output-format", "json").ok().json())
                .hasSize(4);

        vsm.run("free", "thin:vm-104-disk-0").ok();
        vsm.run("free", "thin:vm-100-disk-0").ok();
        assertThat(vg.lvNames())
                .as("freeing a volume takes its snapshot with it")
                .containsExactly("base-101-disk-0", "data", "vm-102-disk-0");
        vsm.run("free", "thin:vm-102-disk-0").ok();
        vsm.run("free", "thin:base-101-disk-0").ok();
        assertThat(vg.lvNames()).containsExactly("data");
    }

    /**
     * pve's lvmthin import of a base volume (a template's disk migrating): the data arrives as the
     * guest's volume, which then becomes the base, read-only with activation skipped; a taken base
     * name is refused, or with {@code -allow-rename 1} the next free name becomes the base.
     */
    @Test
    void aBaseArrivesByStreamAsABase() throws IOException {
        byte[] data = pattern((byte) 9, 2 * MIB);
        Path stream = sandbox.resolve("base.raw+size");
        Files.write(
                stream,
                ByteBuffer.allocate(8)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(4 * MIB)
                        .array());
        Files.write(stream, data, StandardOpenOption.APPEND);
        Files.write(stream, new byte[2 * MIB], StandardOpenOption.APPEND);
        assertThat(vsm.run("import", "thin:base-105-disk-0", "raw+size", stream.toString(), "-q")
                        .ok()
                        .out())
                .isEqualTo("successfully imported 'thin:base-105-disk-0'\n");
        assertThat(attr("base-105-disk-0")).as("read-only, activation skipped").matches("Vri-[^a].tz-k");
        assertThat(vg.lvNames()).containsExactly("base-105-disk-0", "data");

        vsm.run("import", "thin:base-105-disk-0", "raw+size", stream.toString(), "-q")
                .badInput("volume 'base-105-disk-0' already exists on storage 'thin'");
        assertThat(vsm.run("import", "thin:base-105-disk-0", "raw+size", stream.toString(), "-allow-rename", "1", "-q")
                        .ok()
                        .out())
                .isEqualTo("successfully imported 'thin:base-105-disk-1'\n");
        assertThat(vg.lvNames()).containsExactly("base-105-disk-0", "base-105-disk-1", "data");

        vsm.run("clone", "thin:base-105-disk-1", "106").ok();
        assertThat(read(dev("vm-106-disk-0"), data.length))
                .as("a clone of the imported base holds the stream's data")
                .isEqualTo(data);
    }

    /**
     * A SIGKILL in lvm2's activation of a new volume (in {@code vsm alloc}) can leave its
     * device-mapper device created without a table, or with a table loaded and never resumed.
     * lvm2's lvremove then removes the device, takes the pool for unused, fails to deactivate it
     * while another volume uses it, and stops: "Cannot deactivate logical volume" (seen once in
     * {@link ThinCrashTest}). free and rollback finish the activation first.
     */
    @Test
    void freeAndRollbackOfAVolumeAKillLeftWithoutALiveTable() throws IOException {
        vsm.run("alloc", "thin", "101", "", "4M").ok(); // another user of the pool
        for (boolean loaded : new boolean[] {false, true}) {
            vsm.run("alloc", "thin", "100", "", "4M").ok();
            leaveWithoutALiveTable("vm-100-disk-0", loaded);
            assertThat(attr("vm-100-disk-0").charAt(4)).isEqualTo(loaded ? 'i' : 'X');
            Vsm.Result free = vsm.run("free", "thin:vm-100-disk-0");
            assertThat(free.exit())
                    .as("free, table loaded: %s; %s", loaded, free.err())
                    .isZero();
            assertThat(vg.lvNames()).containsExactly("data", "vm-101-disk-0");
        }
        vsm.run("alloc", "thin", "100", "", "4M").ok(); // the pool's other user now
        vsm.run("snapshot", "thin:vm-101-disk-0", "s1").ok();
        leaveWithoutALiveTable("vm-101-disk-0", false);
        Vsm.Result rollback = vsm.run("rollback", "thin:vm-101-disk-0", "s1");
        assertThat(rollback.exit()).as("rollback: %s", rollback.err()).isZero();
        vsm.run("free", "thin:vm-101-disk-0").ok();
        vsm.run("free", "thin:vm-100-disk-0").ok();
        assertThat(vg.lvNames()).containsExactly("data");
    }

    /** What a kill between lvm2's creating the device and resuming its table leaves (dmsetup, with the LV's uuid). */
    private void leaveWithoutALiveTable(String lv, boolean loaded) {
        String device = vg.name().replace("-", "--") + "-" + lv.replace("-", "--");
        String uuid = HostTools.mustRun(Map.of(), "dmsetup", "info", "-c", "--noheadings", "-o", "uuid", device)
                .strip();
        String table = HostTools.mustRun(Map.of(), "dmsetup", "table", device).strip();
        HostTools.mustRun(Map.of(), "dmsetup", "remove", device);
        HostTools.mustRun(Map.of(), "dmsetup", "create", "--notable", "-u", uuid, device);
        if (loaded) {
            HostTools.mustRun(Map.of(), "dmsetup", "load", device, "--table", table);
        }
    }

    @Test
    void theOverprovisionGuardOnARealPool() {
        Vsm guarded = vsm("max-overprovision: 1");
        guarded.run("alloc", "thin", "100", "", "48M").ok();
        Vsm.Result r = guarded.run("alloc", "thin", "100", "", "20M");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err())
                .contains(
                        "would add up to 71303168 bytes (now 50331648), more than max-overprovision 1 x the pool size 67108864 bytes");
        assertThat(vg.lvNames()).containsExactly("data", "vm-100-disk-0");
        guarded.run("alloc", "thin", "100", "", "16M").ok();
    }

    @Test
    void statusWarnsWhenThePoolIsOverEightyPercentFull() throws IOException {
        vsm.run("alloc", "thin", "100", "", "60M").ok();
        assertThat(vsm.run("status").ok().err()).isEmpty();
        write(dev("vm-100-disk-0"), pattern((byte) 3, 56 * MIB)); // 87.5% of the pool's 64 MiB
        Vsm.Result text = vsm.run("status").ok();
        assertThat(text.err())
                .startsWith("warning: storage 'thin': thin pool " + vg.name() + "/data data is 8")
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

    /**
     * 4 allocs and 4 clones of one base, 8 vsm processes started together (real processes: the
     * storage lock is a file lock between processes): 8 distinct, whole thin volumes, the clones
     * holding the base's data, and nothing else in the VG; then 8 frees of them started together:
     * all gone, {@code vsm list} agreeing with {@code lvs}, the pool's transaction id and thin
     * volume count in lvm2 the kernel's. Eight, not more: each is a JVM started under TCG, and
     * {@link ThinRaceTest} runs sixteen at once on the host.
     */
    @Test
    void eightParallelAllocsClonesAndFrees() throws IOException {
        vsm.run("alloc", "thin", "101", "", "4M").ok();
        byte[] baseData = pattern((byte) 6, MIB);
        write(dev("vm-101-disk-0"), baseData);
        vsm.run("create-base", "thin:vm-101-disk-0").ok();

        Vsm parallel = vsm().env("VSM_LOCK_TIMEOUT", "600");
        java.util.List<Vsm.Started> started = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            started.add(parallel.start("alloc", "thin", "100", "", "4M"));
            started.add(parallel.start("clone", "thin:base-101-disk-0", "102"));
        }
        java.util.List<String> made = new java.util.ArrayList<>();
        for (Vsm.Started s : started) {
            String out = s.finish(900).ok().out();
            assertThat(out).matches("successfully created (linked clone )?'thin:vm-10[02]-disk-\\d+'\n");
            made.add(out.substring(out.indexOf("'thin:") + 6, out.lastIndexOf('\'')));
        }
        assertThat(made).as("8 distinct volumes").doesNotHaveDuplicates().hasSize(8);
        assertThat(vg.lvNames())
                .containsExactlyInAnyOrderElementsOf(java.util.stream.Stream.concat(
                                made.stream(), java.util.stream.Stream.of("data", "base-101-disk-0"))
                        .toList());
        for (String lv : made) {
            assertThat(vg.field(lv, "lv_size")).as(lv).isEqualTo(String.valueOf(4L * MIB));
            assertThat(attr(lv)).as(lv).startsWith("Vwi-a");
            if (lv.startsWith("vm-102-")) {
                assertThat(read(dev(lv), baseData.length))
                        .as("clone %s holds the base's data", lv)
                        .isEqualTo(baseData);
            }
        }
        vg.checkThinPool("data", "after 8 parallel allocs and clones");

        java.util.List<Vsm.Started> frees = new java.util.ArrayList<>();
        for (String lv : made) {
            frees.add(parallel.start("free", "thin:" + lv));
        }
        for (Vsm.Started s : frees) {
            s.finish(900).ok();
        }
        assertThat(vg.lvNames()).as("after 8 parallel frees").containsExactly("base-101-disk-0", "data");
        vg.checkThinPool("data", "after 8 parallel frees");
        assertThat(vsm.run("list", "thin", "--output-format", "json").ok().json())
                .as("vsm list after 8 parallel frees")
                .extracting(v -> v.get("volid").asText())
                .containsExactly("thin:base-101-disk-0");
    }

    /**
     * Zeroing a thin volume by writing zeroes provisions it: in a 1 GiB pool, a 2 GiB volume's
     * {@code blkdiscard --zeroout} fills the pool to 100% and fails with ENOSPC. vsm discards thin
     * volumes instead, through {@code vsm wipe} of the volume and of its device alike.
     */
    @Test
    void wipeDiscardsAThinVolumeAndNeverFillsThePool() throws IOException {
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "1g", "-n", "big", vg.name());
        assertThat(attr("big")).as("a pool that zeroes new blocks").matches("twi-a-tz.*");
        Vsm big = vsmOnPool("big");
        big.run("alloc", "thin", "100", "", "2G").ok();
        Path volume = dev("vm-100-disk-0");
        write(volume, pattern((byte) 9, 96 * MIB));
        double written = Double.parseDouble(vg.field("big", "data_percent"));
        assertThat(written).as("the pool after writing 96 MiB").isGreaterThan(9.0);

        assertThat(big.run("wipe", "thin:vm-100-disk-0", "--dry-run").ok().out())
                .contains("+ blkdiscard " + volume + " -v --step " + 32L * MIB + "\n")
                .doesNotContain("--zeroout");
        Vsm.Result wipe = big.run("wipe", "thin:vm-100-disk-0", "--yes").ok();
        assertThat(wipe.out() + wipe.err()).contains("'" + volume + "' is a thin volume: discarding it");
        assertThat(Double.parseDouble(vg.field("big", "data_percent")))
                .as("the pool after the wipe (%s%% before)", written)
                .isLessThan(1.0);
        assertThat(nonZeroBytes(volume, 128 * MIB))
                .as("non-zero bytes in the wiped volume's first 128 MiB")
                .isZero();

        write(volume, pattern((byte) 10, 64 * MIB));
        big.run("wipe", "--device", volume.toString(), "--yes").ok();
        assertThat(Double.parseDouble(vg.field("big", "data_percent")))
                .as("the pool after wipe --device")
                .isLessThan(1.0);
        assertThat(nonZeroBytes(volume, 128 * MIB))
                .as("non-zero bytes after wipe --device")
                .isZero();
        assertThat(vg.lvNames()).contains("vm-100-disk-0");
    }

    @Test
    void aPoolThatIgnoresDiscardsIsNotZeroFilledAndAPoolThatDoesNotZeroIsReported() throws IOException {
        vg.lvm(
                "lvcreate",
                "-q",
                "--yes",
                "--type",
                "thin-pool",
                "-L",
                "32m",
                "--discards",
                "ignore",
                "-Zn",
                "-n",
                "raw",
                vg.name());
        Vsm raw = vsmOnPool("raw");
        raw.run("alloc", "thin", "100", "", "64M").ok();
        write(dev("vm-100-disk-0"), pattern((byte) 4, 8 * MIB));
        String before = vg.field("raw", "data_percent");
        Vsm.Result wipe = raw.run("wipe", "thin:vm-100-disk-0", "--yes");
        assertThat(wipe.exit()).as("stderr: %s", wipe.err()).isEqualTo(1);
        assertThat(wipe.err())
                .contains("is a thin volume whose pool ignores discards - not zeroing it")
                .contains("lvchange --discards nopassdown");
        assertThat(vg.field("raw", "data_percent"))
                .as("the pool's data percent")
                .isEqualTo(before);

        Vsm.Result status = raw.run("status").ok();
        assertThat(status.err())
                .contains("warning: storage 'thin': thin pool " + vg.name()
                        + "/raw does not zero new blocks (lvs -o zero)");
    }

    static long nonZeroBytes(Path device, long limit) throws IOException {
        long count = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(device)) {
            long done = 0;
            for (int n;
                    done < limit && (n = in.read(buf, 0, (int) Math.min(buf.length, limit - done))) > 0;
                    done += n) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] != 0) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    static byte[] pattern(byte value, int size) {
        byte[] data = new byte[size];
        Arrays.fill(data, value);
        return data;
    }

    /** Writes through the device node and waits for it to reach the device. */
    static void write(Path device, byte[] data) throws IOException {
        Path file = Files.createTempFile("vsm-thin-data", ".bin");
        try {
            Files.write(file, data);
            HostTools.mustRun(
                    Map.of(), "dd", "if=" + file, "of=" + device, "bs=1M", "conv=fsync,notrunc", "status=none");
        } finally {
            Files.delete(file);
        }
    }

    static byte[] read(Path device, int length) throws IOException {
        try (InputStream in = Files.newInputStream(device)) {
            return in.readNBytes(length);
        }
    }
}
