package dev.vsm.t.guest;

import dev.vsm.testing.HostTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A real LVM volume group on one of the guest's virtio disks, activated through the guest's
 * device-mapper (lvm2 makes {@code /dev/VG/LV} itself, there being no udev). For tests that run
 * {@link InGuest}: lvm2 uses the guest's lvm.conf ({@code LVM_SYSTEM_DIR}, set for the whole guest).
 * {@link #close()} removes the group and the PV label, so the next test starts from a blank disk.
 */
public final class DiskVolumeGroup implements AutoCloseable {
    private static final String LVM = "/sbin/lvm";
    private final String device;
    private final String name;

    private DiskVolumeGroup(String device, String name) {
        this.device = device;
        this.name = name;
    }

    /** pvcreate and vgcreate on {@code device} (e.g. {@code /dev/vda}), with a unique name. */
    public static DiskVolumeGroup create(String device) {
        if (!InGuest.inside()) {
            throw new IllegalStateException("a DiskVolumeGroup needs the guest's kernel (run the test InGuest)");
        }
        DiskVolumeGroup vg = new DiskVolumeGroup(device, "vsmg" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30), 36));
        vg.lvm("pvcreate", "-q", "-ff", "-y", device);
        vg.lvm("vgcreate", "-q", vg.name, device);
        return vg;
    }

    public String name() {
        return name;
    }

    /** The PV's device. */
    public String device() {
        return device;
    }

    /** Runs an lvm2 command; fails the test if it fails; returns stdout. */
    public String lvm(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = LVM;
        System.arraycopy(args, 0, argv, 1, args.length);
        return HostTools.mustRun(Map.of(), argv);
    }

    /** One {@code lvs} column of one LV, in bytes where it is a size. */
    public String field(String lv, String column) {
        return lvm("lvs", "--noheadings", "--units", "b", "--nosuffix", "-o", column, name + "/" + lv).strip();
    }

    /** The names of every LV in the group, sorted (hidden ones, e.g. the pool's tdata, not included). */
    public List<String> lvNames() {
        return lvm("lvs", "--noheadings", "-o", "lv_name", name).lines().map(String::strip).filter(s -> !s.isEmpty())
                .sorted().toList();
    }

    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        for (String[] argv : List.of(new String[] {LVM, "vgremove", "-f", "-y", name}, new String[] {LVM, "pvremove", "-ff", "-y", device})) {
            HostTools.Result r = HostTools.run(Map.of(), argv);
            if (!r.ok()) {
                problems.add(String.join(" ", argv) + ": " + (r.out() + r.err()).strip());
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("tearing down volume group " + name + ": " + String.join("; ", problems));
        }
    }
}
