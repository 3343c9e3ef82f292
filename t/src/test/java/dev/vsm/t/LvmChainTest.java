package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.QemuIo;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thick LVM with {@code snapshot-as-volume-chain} (pve 9's qcow2 volume chains) on a real kernel
 * ({@link InGuest}): qcow2 volumes and snapshots are LVs, activated through device-mapper, read
 * and written by the real qemu-img and qemu-io. Known data is written before and after every
 * snapshot; after the rollback and every delete (oldest, middle, newest) each remaining snapshot
 * and the volume read back byte for byte. Also: dry runs and bad input change nothing, activation
 * stays in the storage's VG (#7143), rename activates first (#7280), listing does not activate
 * (#6819), saferemove zeroes every LV of a chain, the oldest snapshot grows before a larger
 * child is committed into it (#7094), what a VM manager takes from pve's plugin API 15 (the
 * layers, a snapshot's resize, rename, rollback check and activation), and with vsm's
 * {@code shrink-snapshot-lvs} snapshots' LVs shrink to their images and grow back before a merge.
 */
@GuestTest
class LvmChainTest {
    private static final int MIB = 1024 * 1024;
    private static final String VOLID = "san:vm-100-disk-0.qcow2";
    private static final String VOLNAME = "vm-100-disk-0.qcow2";

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(96, 64, 72 * 1024);

    @TempDir
    Path sandbox;

    private final List<DiskVolumeGroup> groups = new ArrayList<>();
    private DiskVolumeGroup vg;
    private Vsm vsm;
    /** What the guest sees in the volume now. */
    private byte[] current;
    /** What it saw when each snapshot was taken. */
    private final Map<String, byte[]> snapshots = new LinkedHashMap<>();

    @AfterEach
    void tearDown() {
        for (DiskVolumeGroup group : groups) {
            group.close();
        }
    }

    private Vsm vsm(String... properties) {
        vg = group("/dev/vda");
        StringBuilder yaml = new StringBuilder("""
                storages:
                  san:
                    type: lvm
                    vgname: %s
                    snapshot-as-volume-chain: 1
                """.formatted(vg.name()));
        for (String p : properties) {
            yaml.append("    ").append(p).append('\n');
        }
        vsm = new Vsm(sandbox).writeConfig(yaml.toString());
        return vsm;
    }

    /**
     * A VG on {@code disk}, zeroed first: qcow2's {@code preallocation=metadata} maps every cluster
     * to the LV, so an unwritten cluster reads what the PV held before (as in pve: only saferemove
     * zeroes a freed LV), and an earlier test in the same guest leaves its data there.
     */
    private DiskVolumeGroup group(String disk) {
        QemuIo.run("blkdiscard", "-z", disk);
        DiskVolumeGroup group = DiskVolumeGroup.create(disk);
        groups.add(group);
        return group;
    }

    private Path dev(String lv) {
        return Path.of("/dev", vg.name(), lv);
    }

    private static String snapLv(String snapshot) {
        return "snap_vm-100-disk-0_" + snapshot + ".qcow2";
    }

    @Test
    void snapshotsRollbackAndDeletesKeepEveryLayersData() {
        vsm();
        allocate(1);
        assertThat(vg.field(VOLNAME, "lv_tags")).isEqualTo("pve-vm-100,pve-vm-100-disk-0.qcow2");
        JsonNode base = qemuImgInfo(dev(VOLNAME));
        assertThat(base.get("virtual-size").asLong()).isEqualTo(MIB);
        assertThat(base.has("backing-filename")).isFalse();
        write(0x11, 0, 256 * 1024);

        snapshot("s1");
        JsonNode overlay = qemuImgInfo(dev(VOLNAME));
        assertThat(overlay.get("backing-filename").asText())
                .as("relative backing name")
                .isEqualTo(snapLv("s1"));
        assertThat(overlay.get("cluster-size").asInt()).isEqualTo(128 * 1024);
        assertThat(overlay.at("/format-specific/data/extended-l2").asBoolean()).isTrue();
        assertThat(vg.field(snapLv("s1"), "lv_tags"))
                .as("the snapshot LV keeps the volume's tags")
                .isEqualTo("pve-vm-100,pve-vm-100-disk-0.qcow2");
        assertThat(vg.field(VOLNAME, "lv_tags")).isEqualTo("pve-vm-100,pve-vm-100-disk-0.qcow2");
        write(0x22, 128 * 1024, 64 * 1024);
        write(0x23, 4096, 4096);

        snapshot("s2");
        write(0x33, 512 * 1024, 128 * 1024);
        snapshot("s3");
        write(0x44, 8192, 512);
        verify();
        assertThat(vsm.run("list", "san").ok().lines())
                .as("snapshot LVs are not volumes")
                .hasSize(2)
                .last()
                .asString()
                .startsWith(VOLID + " qcow2 ");
        assertThat(vsm.run("info", VOLID).ok().out()).contains("snapshots: s1,s2,s3\n");

        // a dry run of each chain operation prints its lvm and qemu-img lines and changes nothing
        String lvsBefore = lvmState();
        String name = vg.name();
        String dryRuns = vsm.run("snapshot", VOLID, "s4", "--dry-run").ok().out()
                + vsm.run("rollback", VOLID, "s3", "--dry-run").ok().out()
                + vsm.run("snapshot-delete", VOLID, "s1", "--dry-run").ok().out()
                + vsm.run("snapshot-delete", VOLID, "s2", "--dry-run").ok().out()
                + vsm.run("free", VOLID, "--dry-run").ok().out();
        assertThat(dryRuns)
                .contains("lvrename " + name + " " + VOLNAME + " " + snapLv("s4") + "\n")
                .contains("-aly -Wy --yes --size ")
                .contains("--name " + VOLNAME + " --setautoactivation n --addtag pve-vm-100 --addtag @pve-" + VOLNAME
                        + " " + name + "\n")
                .contains("lvchange -aey --select 'vg_name = \"" + name
                        + "\" && lv_name =~ '\\''^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'\\'''\n")
                .contains("create -F qcow2 -b " + snapLv("s4") + " -f qcow2 " + dev(VOLNAME)
                        + " -o extended_l2=on,cluster_size=128k,preallocation=metadata\n")
                .contains("create -F qcow2 -b " + snapLv("s3") + " -f qcow2 " + dev(VOLNAME))
                .contains(VOLNAME + ": deleting snapshot 's1' by commiting snapshot 's2'\n")
                .contains("commit -f qcow2 " + dev(snapLv("s2")) + "\n")
                .contains("lvrename " + name + " " + snapLv("s1") + " " + snapLv("s2") + "\n")
                .contains(VOLNAME + ": deleting snapshot 's2' by rebasing 's3' on top of 's1'\n")
                .contains("rebase -b " + snapLv("s1") + " -F qcow2 -f qcow2 " + dev(snapLv("s3")) + "\n")
                .contains("lvremove -f " + name + "/" + snapLv("s2") + " --select lv_uuid=")
                .contains("lvremove -f " + name + "/" + snapLv("s1") + " --select lv_uuid=");
        assertThat(lvmState()).as("after the dry runs").isEqualTo(lvsBefore);
        verify();

        // bad input: exit 2, pve's words, nothing changed
        vsm.run("alloc", "san", "100", "", "1M", "--format", "raw").ok();
        refused("can't rollback, 's1' is not most recent snapshot on '" + VOLNAME + "'", "rollback", VOLID, "s1");
        refused("can't rollback, snapshot 'nope' does not exist on '" + VOLNAME + "'", "rollback", VOLID, "nope");
        refused("snapshot 'nope' does not exist on '" + VOLNAME + "'", "snapshot-delete", VOLID, "nope");
        refused("target snapshot 's1' already exists", "snapshot", VOLID, "s1");
        refused("snapshot feature is not available", "snapshot", "san:vm-100-disk-1", "s9");
        refused("can't rollback snapshot for 'raw' volume", "rollback", "san:vm-100-disk-1", "s1");
        refused("can't delete snapshot for 'raw' volume", "snapshot-delete", "san:vm-100-disk-1", "s1");
        refused("invalid snapshot name '9lives'", "snapshot", VOLID, "9lives");
        refused("snapshot name 'current' is reserved", "snapshot", VOLID, "current");
        refused("can't rename volume '" + VOLNAME + "' - external snapshot exists", "rename", VOLID, "101");
        refused("no such volume 'vm-100-disk-7.qcow2'", "snapshot", "san:vm-100-disk-7.qcow2", "s3");
        refused("unable to parse lvm volume name '" + snapLv("s1") + "'", "free", "san:" + snapLv("s1"));
        vsm.run("free", "san:vm-100-disk-1").ok();
        verify();

        // rollback to the newest: the writes since it are gone, every snapshot stays
        assertThat(vsm.run("rollback", VOLID, "s3").ok().out())
                .isEqualTo("rolled back '" + VOLID + "' to snapshot 's3'\n");
        current = snapshots.get("s3").clone();
        verify();
        write(0x55, 0, 4096);

        // the middle one: s3 is rebased on s1
        assertThat(vsm.run("snapshot-delete", VOLID, "s2").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's2' by rebasing 's3' on top of 's1'\n");
        snapshots.remove("s2");
        assertThat(qemuImgInfo(dev(snapLv("s3"))).get("backing-filename").asText())
                .isEqualTo(snapLv("s1"));
        verify();

        // the oldest: s3 is committed into s1, which takes s3's LV name
        assertThat(vsm.run("snapshot-delete", VOLID, "s1").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's1' by commiting snapshot 's3'\n");
        snapshots.remove("s1");
        assertThat(qemuImgInfo(dev(snapLv("s3"))).has("backing-filename")).isFalse();
        verify();

        // the newest: current is rebased on s3
        snapshot("s4");
        write(0x66, 1000 * 1024, 24 * 1024);
        assertThat(vsm.run("snapshot-delete", VOLID, "s4").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's4' by rebasing 'current' on top of 's3'\n");
        snapshots.remove("s4");
        verify();
        assertThat(vsm.run("info", VOLID).ok().out()).contains("snapshots: s3\n");

        // the oldest when current is its child: it takes current's data and name
        assertThat(vsm.run("snapshot-delete", VOLID, "s3").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's3' by commiting snapshot 'current'\n");
        snapshots.remove("s3");
        verify();
        assertThat(vg.lvNames()).containsExactly(VOLNAME);
        assertThat(qemuImgInfo(dev(VOLNAME)).has("backing-filename")).isFalse();

        vsm.run("free", VOLID).ok();
        assertThat(vg.lvNames()).isEmpty();
    }

    /**
     * Two storages, each a VG holding an LV {@code vm-100-disk-0.qcow2}: activating one's chain
     * (by {@code --select} with the VG's name) leaves the other's LV inactive, where pve's old
     * activation by tag activated both (#7143). Listing inactive qcow2 LVs gives pve's
     * {@code approximate-size} and activates nothing (#6819); a rename activates the chain first
     * (#7280).
     */
    @Test
    void activationStaysInTheStoragesVolumeGroup() {
        vsm();
        DiskVolumeGroup other = group("/dev/vdb");
        vsm.writeConfig("""
                storages:
                  san:
                    type: lvm
                    vgname: %s
                    snapshot-as-volume-chain: 1
                  other:
                    type: lvm
                    vgname: %s
                    snapshot-as-volume-chain: 1
                """.formatted(vg.name(), other.name()));
        allocate(1);
        assertThat(vsm.run("alloc", "other", "100", "", "1M", "--format", "qcow2")
                        .ok()
                        .out())
                .contains("other:" + VOLNAME);
        write(0x11, 0, 64 * 1024);
        snapshot("s1");
        write(0x22, 4096, 4096);
        vg.lvm("vgchange", "-an", vg.name());
        other.lvm("vgchange", "-an", other.name());

        JsonNode list = vsm.run("list", "san", "--output-format", "json").ok().json();
        assertThat(list).hasSize(1);
        assertThat(list.get(0).get("approximate-size").asLong())
                .as("an inactive qcow2 LV's size is its LV's, approximately")
                .isEqualTo(Long.parseLong(vg.field(VOLNAME, "lv_size")));
        assertThat(list.get(0).has("size")).isFalse();
        assertThat(vsm.run("list", "san").ok().out()).contains(" ~" + vg.field(VOLNAME, "lv_size") + " ");
        assertThat(active(vg, VOLNAME)).as("list activates nothing").isFalse();

        snapshot("s2");
        assertThat(active(vg, VOLNAME)).isTrue();
        assertThat(active(vg, snapLv("s1"))).isTrue();
        assertThat(active(other, VOLNAME))
                .as("the other VG's LV of the same name")
                .isFalse();
        write(0x33, 8192, 4096);
        verify();

        // rename of an inactive qcow2 volume without snapshots: the chain is activated to read it
        assertThat(active(other, VOLNAME)).isFalse();
        assertThat(vsm.run("rename", "other:" + VOLNAME, "101").ok().out()).contains("other:vm-101-disk-0.qcow2");
        assertThat(other.lvNames()).containsExactly("vm-101-disk-0.qcow2");
        assertThat(other.field("vm-101-disk-0.qcow2", "lv_tags")).isEqualTo("pve-vm-101,pve-vm-101-disk-0.qcow2");
        assertThat(active(vg, VOLNAME)).isTrue();
    }

    /**
     * saferemove: a free renames every LV of the chain {@code del-...} and zeroes each; a deleted
     * snapshot's LV is zeroed too. A marker written into the volume is nowhere on the PV after.
     */
    @Test
    void saferemoveZeroesEveryLvOfAChain() throws IOException {
        vsm("saferemove: true");
        allocate(2);
        byte[] marker = ("vsm-chain-"
                        + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        writeMarker(marker, 0);
        snapshot("s1");
        writeMarker(marker, 512 * 1024);
        snapshot("s2");
        writeMarker(marker, 1024 * 1024);
        assertThat(occurrences(Path.of(vg.device()), marker)).isGreaterThan(100);

        Vsm.Result delete = vsm.run("snapshot-delete", VOLID, "s2").ok();
        assertThat(delete.out())
                .contains("zero-out data on image " + snapLv("s2") + " (/dev/" + vg.name() + "/del-" + snapLv("s2")
                        + ")\n");
        assertThat(vg.lvNames()).containsExactlyInAnyOrder(VOLNAME, snapLv("s1"));

        Vsm.Result free = vsm.run("free", VOLID).ok();
        assertThat(free.out())
                .contains("zero-out data on image " + VOLNAME + " ")
                .contains("zero-out data on image " + snapLv("s1") + " ");
        assertThat(free.err()).as("no skipped zero-out on a real kernel").isEmpty();
        assertThat(vg.lvNames()).isEmpty();
        assertThat(occurrences(Path.of(vg.device()), marker))
                .as("the marker on the PV after the free")
                .isZero();
    }

    /**
     * #7094: the disk grown after a snapshot, the oldest snapshot's delete first grows its LV and
     * image to the child's size, then commits: the data written beyond the old end survives.
     */
    @Test
    void theOldestSnapshotGrowsBeforeALargerChildIsCommitted() {
        vsm();
        allocate(1);
        write(0x11, 0, 64 * 1024);
        // dry runs of a resize and of a rename (no snapshot yet): every line printed, nothing changed
        String lvsBefore = lvmState();
        String name = vg.name();
        String activation = "+ /sbin/lvchange -aey --select 'vg_name = \"" + name
                + "\" && lv_name =~ '\\''^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'\\'''\n";
        assertThat(vsm.run("resize", VOLID, "8M", "--dry-run").ok().out())
                .contains(activation)
                .containsPattern("\\+ /sbin/lvextend -L [0-9]+k "
                        + Pattern.quote(dev(VOLNAME).toString()) + "\n")
                .contains(" resize --preallocation=metadata -f qcow2 " + dev(VOLNAME) + " 8388608\n");
        assertThat(vsm.run("rename", VOLID, "101", "--dry-run").ok().out())
                .contains(activation)
                .contains("+ /sbin/lvrename " + name + " " + VOLNAME + " vm-101-disk-0.qcow2\n")
                .contains("+ /sbin/lvchange --addtag pve-vm-101 --deltag pve-vm-100 --addtag pve-vm-101-disk-0.qcow2"
                        + " --deltag pve-" + VOLNAME + " " + name + "/vm-101-disk-0.qcow2\n");
        assertThat(lvmState()).as("after the dry runs").isEqualTo(lvsBefore);
        assertThat(qemuImgInfo(dev(VOLNAME)).get("virtual-size").asLong()).isEqualTo(MIB);

        snapshot("s1");
        long snapLvSize = Long.parseLong(vg.field(snapLv("s1"), "lv_size"));
        // 8 MiB: its measure needs more than the 4 MiB extent the 1 MiB image's LV got
        vsm.run("resize", VOLID, "8M").ok();
        assertThat(qemuImgInfo(dev(VOLNAME)).get("virtual-size").asLong()).isEqualTo(8L * MIB);
        current = Arrays.copyOf(current, 8 * MIB);
        write(0x22, 7 * MIB + 512 * 1024, 64 * 1024);
        assertThat(vsm.run("snapshot-delete", VOLID, "s1").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's1' by commiting snapshot 'current'\n"
                        + "resize 's1' (1048576 bytes) to match 'current' (8388608 bytes)\n");
        snapshots.remove("s1");
        assertThat(vg.lvNames()).containsExactly(VOLNAME);
        assertThat(Long.parseLong(vg.field(VOLNAME, "lv_size"))).isGreaterThan(snapLvSize);
        assertThat(qemuImgInfo(dev(VOLNAME)).get("virtual-size").asLong()).isEqualTo(8L * MIB);
        verify();
    }

    /**
     * What a VM manager takes from pve's plugin API 15, on a chain of LVs: every layer in
     * {@code vsm info} (the LV's device, volume id, virtual size, {@code lv_time}), whether a
     * rollback is possible and what blocks it, a snapshot's LV and image grown before the manager
     * commits a larger child into it (#7094), a snapshot renamed with the layer above rebased onto
     * the new LV name, and a snapshot's deactivation and activation (the whole chain). Each changed
     * layer is read back byte for byte; dry runs and refusals change nothing.
     */
    @Test
    void aVmManagersContractOnAChainOfLvs() {
        vsm();
        long before = System.currentTimeMillis() / 1000 - 2;
        allocate(1);
        write(0x11, 0, 64 * 1024);
        snapshot("s1");
        write(0x22, 4096, 4096);
        snapshot("s2");
        write(0x33, 65536, 4096);
        long after = System.currentTimeMillis() / 1000 + 2;

        JsonNode layers =
                vsm.run("info", VOLID, "--output-format", "json").ok().json().get("layers");
        assertThat(layers).hasSize(3);
        assertLayer(layers.get(0), "current", 0, "s2", null, VOLNAME);
        assertLayer(layers.get(1), "s2", 1, "s1", "current", snapLv("s2"));
        assertLayer(layers.get(2), "s1", 2, null, "s2", snapLv("s1"));
        for (JsonNode layer : layers) {
            assertThat(layer.get("virtual-size").asLong()).isEqualTo(MIB);
            assertThat(layer.get("timestamp").asLong()).as("lv_time").isBetween(before, after);
        }

        // only the newest snapshot can be rolled back to
        assertThat(vsm.run("rollback-check", VOLID, "s2").ok().out())
                .isEqualTo("rollback of '" + VOLID + "' to snapshot 's2' is possible\n");
        Vsm.Result blocked = vsm.run("rollback-check", VOLID, "s1");
        assertThat(blocked.exit()).isEqualTo(1);
        assertThat(blocked.out()).isEqualTo("blocked by: s2\n");
        assertThat(blocked.err().strip())
                .isEqualTo("can't rollback, 's1' is not most recent snapshot on '" + VOLNAME + "'");

        // the disk grows; the manager grows s2's LV and image, then commits current into it
        vsm.run("resize", VOLID, "8M").ok();
        current = Arrays.copyOf(current, 8 * MIB);
        write(0x44, 7 * MIB, 64 * 1024);
        String lvsBefore = lvmState();
        assertThat(vsm.run("resize", VOLID, "8M", "--snapshot", "s2", "--dry-run")
                        .ok()
                        .out())
                .containsPattern("\\+ /sbin/lvextend -L [0-9]+k "
                        + Pattern.quote(dev(snapLv("s2")).toString()) + "\n")
                .contains(" resize --preallocation=metadata -f qcow2 " + dev(snapLv("s2")) + " " + 8 * MIB + "\n")
                .endsWith("would resize '" + VOLID + "' snapshot 's2' to " + 8 * MIB + " bytes\n");
        assertThat(lvmState()).as("after the dry run").isEqualTo(lvsBefore);
        long lvSize = Long.parseLong(vg.field(snapLv("s2"), "lv_size"));
        assertThat(vsm.run("resize", VOLID, "8M", "--snapshot", "s2").ok().out())
                .isEqualTo("resized '" + VOLID + "' snapshot 's2' to " + 8 * MIB + " bytes\n");
        assertThat(Long.parseLong(vg.field(snapLv("s2"), "lv_size"))).isGreaterThan(lvSize);
        assertThat(qemuImgInfo(dev(snapLv("s2"))).get("virtual-size").asLong()).isEqualTo(8L * MIB);
        QemuIo.run("qemu-img", "commit", "-f", "qcow2", dev(VOLNAME).toString());
        snapshots.put("s2", current.clone());
        verify();

        // renames: the oldest (s2 above it), then the newest (current above it)
        lvsBefore = lvmState();
        assertThat(vsm.run("rename-snapshot", VOLID, "s1", "first", "--dry-run")
                        .ok()
                        .out())
                .contains("+ /sbin/lvrename " + vg.name() + " " + snapLv("s1") + " " + snapLv("first") + "\n")
                .contains(" rebase -u -b " + snapLv("first") + " -F qcow2 -f qcow2 " + dev(snapLv("s2")) + "\n")
                .endsWith("would rename snapshot 's1' of '" + VOLID + "' to 'first'\n");
        assertThat(lvmState()).as("after the dry run").isEqualTo(lvsBefore);
        renameSnapshot("s1", "first");
        assertThat(qemuImgInfo(dev(snapLv("s2"))).get("backing-filename").asText())
                .isEqualTo(snapLv("first"));
        renameSnapshot("s2", "top");
        assertThat(qemuImgInfo(dev(VOLNAME)).get("backing-filename").asText()).isEqualTo(snapLv("top"));
        assertThat(vg.field(snapLv("top"), "lv_tags")).isEqualTo("pve-vm-100,pve-vm-100-disk-0.qcow2");
        refused("target snapshot 'first' already exists", "rename-snapshot", VOLID, "top", "first");

        // a snapshot's deactivation and activation take the whole chain, as pve's
        assertThat(vsm.run("deactivate", VOLID, "--snapshot", "first").ok().out())
                .isEqualTo("deactivated '" + VOLID + "' snapshot 'first'\n");
        assertThat(activity())
                .containsOnlyKeys(VOLNAME, snapLv("first"), snapLv("top"))
                .doesNotContainValue('a');
        JsonNode activated = vsm.run("activate", VOLID, "--snapshot", "first", "--output-format", "json")
                .ok()
                .json();
        assertThat(activated.get("path").asText())
                .isEqualTo(dev(snapLv("first")).toString());
        assertThat(activity())
                .containsOnlyKeys(VOLNAME, snapLv("first"), snapLv("top"))
                .doesNotContainValue('-');
        verify(); // every layer after the renames and the new activation
    }

    /**
     * vsm's {@code shrink-snapshot-lvs}: each snapshot's LV shrinks to its image's end (here one
     * extent), {@code current} keeps its full measure; a dry run prints the lvextend and lvreduce
     * lines and changes nothing. A rollback, the delete of a middle snapshot (whose child, a frozen
     * layer, grows for the rebase and shrinks after) and of the oldest (grown before the commit into
     * it; without that the commit fails, out of the LV) keep every layer's data byte for byte.
     */
    @Test
    void shrunkSnapshotLvsKeepEveryLayersDataThroughRollbackAndDeletes() {
        vsm("shrink-snapshot-lvs: 1");
        allocate(8);
        long full = 12L * MIB; // 8 MiB measured, in 4 MiB extents
        long extent = 4L * MIB;
        write(0x11, 0, MIB);
        quickSnapshot("s1");
        write(0x22, MIB, 256 * 1024);
        write(0x23, 128 * 1024, 64 * 1024);
        quickSnapshot("s2");
        // s3's data and s1's together need more than s1's one extent: the commit fits only grown
        write(0x33, 2 * MIB, 2560 * 1024);
        quickSnapshot("s3");
        write(0x44, 3 * MIB, 4096);
        assertThat(lvSizes())
                .as("pve: four LVs of %d bytes", full)
                .isEqualTo(Map.of(VOLNAME, full, snapLv("s1"), extent, snapLv("s2"), extent, snapLv("s3"), extent));

        String lvsBefore = lvmState();
        assertThat(vsm.run("snapshot-delete", VOLID, "s1", "--dry-run").ok().out())
                .containsPattern("\\+ /sbin/lvextend -L [0-9]+k "
                        + Pattern.quote(dev(snapLv("s1")).toString()) + "\n")
                .contains("+ /sbin/lvreduce -f -L 4096k " + dev(snapLv("s2")) + "\n");
        assertThat(lvmState()).as("after the dry run").isEqualTo(lvsBefore);

        vsm.run("rollback", VOLID, "s3").ok();
        current = snapshots.get("s3").clone();
        write(0x55, 4 * MIB, 64 * 1024);
        assertThat(vsm.run("snapshot-delete", VOLID, "s2").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's2' by rebasing 's3' on top of 's1'\n");
        snapshots.remove("s2");
        assertThat(vsm.run("snapshot-delete", VOLID, "s1").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's1' by commiting snapshot 's3'\n");
        snapshots.remove("s1");
        long end = imageEnd(dev(snapLv("s3")));
        assertThat(end).as("s1's data and s3's").isGreaterThan(extent);
        assertThat(lvSizes())
                .as("s3 grown for the rebase, s1 for the commit, the merged layer shrunk again")
                .isEqualTo(Map.of(VOLNAME, full, snapLv("s3"), (end + extent - 1) / extent * extent));
        verify();
    }

    /** A snapshot without the checks of {@link #snapshot}: {@link #verify} reads every layer once, later. */
    private void quickSnapshot(String name) {
        vsm.run("snapshot", VOLID, name).ok();
        snapshots.put(name, current.clone());
    }

    /** qemu-img check's {@code image-end-offset}: where the image's last cluster ends. */
    private static long imageEnd(Path image) {
        String json = QemuIo.run("qemu-img", "check", "-U", "--output=json", "-f", "qcow2", image.toString());
        try {
            return new ObjectMapper().readTree(json).get("image-end-offset").asLong();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Every LV's size, by name, from one {@code lvs}. */
    private Map<String, Long> lvSizes() {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (String line : vg.lvm(
                        "lvs", "--noheadings", "--units", "b", "--nosuffix", "-o", "lv_name,lv_size", vg.name())
                .strip()
                .split("\n")) {
            String[] f = line.strip().split("\\s+");
            sizes.put(f[0], Long.parseLong(f[1]));
        }
        return sizes;
    }

    /**
     * A benchmark, not part of the suite (tagged {@code benchmark}, which surefire leaves out unless
     * {@code -Dvsm.test.excludedGroups=} says otherwise; it writes six times the data on each side): what the VG
     * reserves for five snapshots of a disk with data written before each, pve's rule against
     * {@code shrink-snapshot-lvs}, printed ({@code snapshot-lvs:} lines) and held to the issue's
     * target, at most 16/60 of pve's. {@code t/bench/snapshot-lvs.sh} runs it, at 10 GiB with 1 GiB
     * written by default ({@code -Dvsm.snapshot-lvs.disk-mib}, {@code -Dvsm.snapshot-lvs.written-mib}),
     * in 1 MiB extents on the guest's sparse 72 GiB disk.
     */
    @Test
    @Tag("benchmark")
    @EnabledIfSystemProperty(named = "vsm.snapshot-lvs.disk-mib", matches = "[0-9]+")
    void fiveSnapshotsReserveWhatWasWrittenWithTheOption() {
        int diskMib = Integer.getInteger("vsm.snapshot-lvs.disk-mib");
        int writtenMib = Integer.getInteger("vsm.snapshot-lvs.written-mib", diskMib / 10);
        vg = DiskVolumeGroup.create("/dev/vdc", "-s", "1M");
        groups.add(vg);
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  pve:
                    type: lvm
                    vgname: %1$s
                    snapshot-as-volume-chain: 1
                  vsm:
                    type: lvm
                    vgname: %1$s
                    snapshot-as-volume-chain: 1
                    shrink-snapshot-lvs: 1
                """.formatted(vg.name()));
        long[] pve = reservedPerSnapshot("pve", diskMib, writtenMib);
        long[] shrunk = reservedPerSnapshot("vsm", diskMib, writtenMib);
        System.out.printf(
                "snapshot-lvs: a %d MiB disk, %d MiB written before each snapshot: VG bytes reserved%n",
                diskMib, writtenMib);
        System.out.println("snapshot-lvs: snapshots | pve | shrink-snapshot-lvs");
        for (int i = 0; i < pve.length; i++) {
            System.out.printf("snapshot-lvs: %d | %d | %d%n", i, pve[i], shrunk[i]);
        }
        assertThat(pve[5]).as("pve: six LVs of the disk's measure").isEqualTo(6 * pve[0]);
        assertThat(shrunk[5] * 60).as("the issue's target: 16 of pve's 60").isLessThanOrEqualTo(pve[5] * 16);
    }

    /** The VG's bytes in use with the volume only, then after each of five snapshots; the volume freed after. */
    private long[] reservedPerSnapshot(String storage, int diskMib, int writtenMib) {
        String volid = storage + ":" + VOLNAME;
        vsm.run("alloc", storage, "100", VOLNAME, diskMib + "M", "--format", "qcow2")
                .ok();
        long[] reserved = new long[6];
        reserved[0] = vgUsed();
        for (int i = 1; i <= 5; i++) {
            QemuIo.run(
                    "qemu-img",
                    "bench",
                    "-w",
                    "-f",
                    "qcow2",
                    "-t",
                    "none",
                    "-c",
                    Integer.toString(writtenMib),
                    "-s",
                    "1M",
                    "-S",
                    "1M",
                    "-o",
                    Long.toString((long) (i - 1) * writtenMib * MIB),
                    "--pattern=" + i,
                    dev(VOLNAME).toString());
            vsm.run("snapshot", volid, "s" + i).ok();
            reserved[i] = vgUsed();
        }
        vsm.run("free", volid).ok();
        return reserved;
    }

    private long vgUsed() {
        String[] sizes = vg.lvm("vgs", "--noheadings", "--units", "b", "--nosuffix", "-o", "vg_size,vg_free", vg.name())
                .strip()
                .split("\\s+");
        return Long.parseLong(sizes[0]) - Long.parseLong(sizes[1]);
    }

    // --- helpers

    private void allocate(int mib) {
        assertThat(vsm.run("alloc", "san", "100", "", mib + "M", "--format", "qcow2")
                        .ok()
                        .out())
                .contains(VOLID);
        current = new byte[mib * MIB];
        assertThat(vg.lvNames()).containsExactly(VOLNAME);
    }

    private void snapshot(String name) {
        assertThat(vsm.run("snapshot", VOLID, name).ok().out())
                .isEqualTo("successfully created snapshot '" + name + "' of '" + VOLID + "'\n");
        snapshots.put(name, current.clone());
        assertThat(vg.lvNames()).contains(snapLv(name), VOLNAME);
        verify();
    }

    private void renameSnapshot(String from, String to) {
        assertThat(vsm.run("rename-snapshot", VOLID, from, to).ok().out())
                .isEqualTo("renamed snapshot '" + from + "' of '" + VOLID + "' to '" + to + "'\n");
        snapshots.put(to, snapshots.remove(from));
        assertThat(vg.lvNames()).contains(snapLv(to)).doesNotContain(snapLv(from));
    }

    private void assertLayer(JsonNode layer, String name, int order, String parent, String child, String lv) {
        assertThat(layer.get("name").asText()).isEqualTo(name);
        assertThat(layer.get("order").asInt()).isEqualTo(order);
        assertThat(layer.has("parent") ? layer.get("parent").asText() : null).isEqualTo(parent);
        assertThat(layer.has("child") ? layer.get("child").asText() : null).isEqualTo(child);
        assertThat(layer.get("file").asText()).isEqualTo(dev(lv).toString());
        assertThat(layer.get("volid").asText()).isEqualTo("san:" + lv);
    }

    private void refused(String message, String... args) {
        String before = lvmState();
        vsm.run(args).badInput(message);
        assertThat(lvmState())
                .as("vsm %s changed the volume group", String.join(" ", args))
                .isEqualTo(before);
    }

    private String lvmState() {
        return vg.lvm("lvs", "--noheadings", "--units", "b", "-o", "lv_name,lv_size,lv_tags", vg.name());
    }

    /** Each LV's state of activation ({@code lv_attr}'s fifth character: {@code a} active, {@code -} not), in one lvs run. */
    private Map<String, Character> activity() {
        Map<String, Character> states = new LinkedHashMap<>();
        vg.rows("lv_attr").forEach((lv, attr) -> states.put(lv, attr.get(0).charAt(4)));
        return states;
    }

    private static boolean active(DiskVolumeGroup group, String lv) {
        return group.field(lv, "lv_attr").charAt(4) == 'a';
    }

    /** Writes {@code length} bytes of {@code pattern} at {@code offset} into the volume, as a guest would. */
    private void write(int pattern, int offset, int length) {
        QemuIo.write(dev(VOLNAME), current, pattern, offset, length);
    }

    private void writeMarker(byte[] marker, int offset) throws IOException {
        Path file = sandbox.resolve("marker.raw");
        byte[] block = new byte[64 * 1024];
        for (int i = 0; i + marker.length <= block.length; i += marker.length) {
            System.arraycopy(marker, 0, block, i, marker.length);
        }
        Files.write(file, block);
        QemuIo.run(
                "qemu-io",
                "-f",
                "qcow2",
                "-c",
                "write -s " + file + " " + offset + " " + block.length,
                dev(VOLNAME).toString());
        System.arraycopy(block, 0, current, offset, block.length);
    }

    /** The volume and every snapshot read back byte for byte, each layer consistent. */
    private void verify() {
        assertSameData("current", dev(VOLNAME), current);
        for (Map.Entry<String, byte[]> s : snapshots.entrySet()) {
            assertSameData("snapshot " + s.getKey(), dev(snapLv(s.getKey())), s.getValue());
        }
        for (String lv : vg.lvNames()) {
            QemuImg.check(dev(lv));
        }
    }

    private void assertSameData(String what, Path image, byte[] expected) {
        QemuIo.assertReadsAs(what, image, expected, sandbox);
    }

    private static JsonNode qemuImgInfo(Path image) {
        return QemuImg.info(image);
    }

    /** How often {@code marker} occurs on a device, read whole. */
    private static int occurrences(Path device, byte[] marker) throws IOException {
        int count = 0;
        int matched = 0;
        try (InputStream in = Files.newInputStream(device)) {
            byte[] buffer = new byte[MIB];
            int n;
            while ((n = in.read(buffer)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == marker[matched]) {
                        if (++matched == marker.length) {
                            count++;
                            matched = 0;
                        }
                    } else {
                        matched = buffer[i] == marker[0] ? 1 : 0;
                    }
                }
            }
        }
        return count;
    }
}
