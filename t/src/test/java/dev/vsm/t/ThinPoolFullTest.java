package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import dev.vsm.testing.HostTools;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thin pool that really fills, on a real kernel ({@link InGuest}): a 64 MiB pool (set to error
 * when full, so a write past it fails at once instead of queueing) under a 96 MiB thin volume,
 * written to 81% and then until the pool is full. {@code status} warns at both and says what to
 * do; at 100% the guest's write fails with ENOSPC and {@code alloc}, {@code clone} and
 * {@code snapshot} refuse, saying what to do.
 */
@GuestTest
class ThinPoolFullTest {
    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(256);

    @TempDir
    Path sandbox;

    private DiskVolumeGroup vg;

    @AfterEach
    void tearDown() {
        if (vg != null) {
            vg.close();
        }
    }

    /** Writes zeros (a thin pool provisions them like any data) into the volume's MiBs [from, to), bypassing the cache. */
    private HostTools.Result write(String lv, int fromMiB, int toMiB) {
        return HostTools.run(
                Map.of(),
                "dd",
                "if=/dev/zero",
                "of=/dev/" + vg.name() + "/" + lv,
                "bs=1M",
                "seek=" + fromMiB,
                "count=" + (toMiB - fromMiB),
                "oflag=direct",
                "conv=notrunc",
                "status=none");
    }

    @Test
    void statusWarnsAtEightyAndAtAHundredPercentAndAllocRefusesAFullPool() {
        vg = DiskVolumeGroup.create("/dev/vda");
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "64m", "-n", "data", vg.name());
        vg.lvm("lvchange", "--errorwhenfull", "y", vg.name() + "/data");
        Vsm vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: data
                """.formatted(vg.name()));
        String pool = vg.name() + "/data";
        vsm.run("alloc", "thin", "100", "", "96M").ok();

        assertThat(write("vm-100-disk-0", 0, 52).exit()).isZero();
        Vsm.Result at80 = vsm.run("status").ok();
        assertThat(at80.err())
                .isEqualTo("warning: storage 'thin': thin pool " + pool + " data is 81.25% full (warning above 80%)"
                        + " - extend the pool or free volumes before it fills up\n");

        HostTools.Result past = write("vm-100-disk-0", 52, 96);
        assertThat(past.exit()).as("a write past the full pool").isNotZero();
        assertThat(past.err()).contains("No space left on device");
        assertThat(vg.field("data", "data_percent")).isEqualTo("100.00");
        Vsm.Result at100 = vsm.run("status").ok();
        assertThat(at100.err())
                .isEqualTo("warning: storage 'thin': thin pool " + pool + " data is 100.00% full (warning above 80%)"
                        + " - extend the pool or free volumes before it fills up\n");
        JsonNode row = vsm.run("status", "--output-format", "json").ok().json().get(0);
        assertThat(row.get("avail").asLong()).isZero();

        Vsm.Result alloc = vsm.run("alloc", "thin", "100", "", "4M");
        assertThat(alloc.exit())
                .as("alloc in a full pool; stderr: %s", alloc.err())
                .isEqualTo(1);
        assertThat(alloc.err())
                .isEqualTo(
                        "storage 'thin': cannot allocate vm-100-disk-1: thin pool " + pool + " is full (data 100.00%, "
                                + "metadata " + vg.field("data", "metadata_percent")
                                + "%) - extend the pool (lvextend -L +<size> " + pool
                                + ", or --poolmetadatasize for metadata) or free volumes\n");
        assertThat(vg.lvNames()).containsExactly("data", "vm-100-disk-0");
    }

    /**
     * Clone and snapshot refuse a full pool as alloc does (a clone or a snapshot shares its
     * origin's blocks, but the first write to either needs new ones): exit status 1, the message
     * saying what to do, nothing made.
     */
    @Test
    void cloneAndSnapshotRefuseAFullPool() {
        vg = DiskVolumeGroup.create("/dev/vda");
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "64m", "-n", "data", vg.name());
        vg.lvm("lvchange", "--errorwhenfull", "y", vg.name() + "/data");
        Vsm vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: data
                """.formatted(vg.name()));
        String pool = vg.name() + "/data";
        vsm.run("alloc", "thin", "101", "", "4M").ok();
        vsm.run("create-base", "thin:vm-101-disk-0").ok();
        vsm.run("alloc", "thin", "100", "", "96M").ok();
        // before the pool is full both work
        vsm.run("snapshot", "thin:vm-100-disk-0", "before").ok();
        vsm.run("clone", "thin:base-101-disk-0", "102").ok();
        assertThat(write("vm-100-disk-0", 0, 96).exit())
                .as("a write past the full pool")
                .isNotZero();
        assertThat(vg.field("data", "data_percent")).isEqualTo("100.00");
        java.util.List<String> lvs = vg.lvNames();
        String full = ": thin pool " + pool + " is full (data 100.00%, metadata " + vg.field("data", "metadata_percent")
                + "%) - extend " + "the pool (lvextend -L +<size> " + pool
                + ", or --poolmetadatasize for metadata) or free volumes\n";

        Vsm.Result clone = vsm.run("clone", "thin:base-101-disk-0", "102");
        assertThat(clone.exit())
                .as("clone in a full pool; stderr: %s", clone.err())
                .isEqualTo(1);
        assertThat(clone.err()).isEqualTo("storage 'thin': cannot clone base-101-disk-0 to vm-102-disk-1" + full);
        Vsm.Result snapshot = vsm.run("snapshot", "thin:vm-100-disk-0", "s1");
        assertThat(snapshot.exit())
                .as("snapshot in a full pool; stderr: %s", snapshot.err())
                .isEqualTo(1);
        assertThat(snapshot.err())
                .isEqualTo("storage 'thin': cannot snapshot vm-100-disk-0 as snap_vm-100-disk-0_s1" + full);
        assertThat(vg.lvNames())
                .as("nothing made")
                .isEqualTo(lvs)
                .containsExactly(
                        "base-101-disk-0", "data", "snap_vm-100-disk-0_before", "vm-100-disk-0", "vm-102-disk-0");
    }
}
