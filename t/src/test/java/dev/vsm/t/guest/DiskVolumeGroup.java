package dev.vsm.t.guest;

import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        return create(device, new String[0]);
    }

    /** {@link #create(String)} with options of vgcreate's ({@code -s 1M}: 1 MiB extents). */
    public static DiskVolumeGroup create(String device, String... vgcreateOptions) {
        if (!InGuest.inside()) {
            throw new IllegalStateException("a DiskVolumeGroup needs the guest's kernel (run the test InGuest)");
        }
        DiskVolumeGroup vg = new DiskVolumeGroup(
                device, "vsmg" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30), 36));
        vg.lvm("pvcreate", "-q", "-ff", "-y", device);
        List<String> argv = new ArrayList<>(List.of("vgcreate", "-q"));
        argv.addAll(List.of(vgcreateOptions));
        argv.addAll(List.of(vg.name, device));
        vg.lvm(argv.toArray(String[]::new));
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
        return lvm("lvs", "--noheadings", "--units", "b", "--nosuffix", "-o", column, name + "/" + lv)
                .strip();
    }

    /**
     * Some {@code lvs} columns of every LV in the group (sizes in bytes), by LV name, in one lvm2
     * run: each row's values in the order of {@code columns} (empty where lvm2 has none).
     */
    public Map<String, List<String>> rows(String... columns) {
        Map<String, List<String>> rows = new java.util.TreeMap<>();
        String out = lvm(
                "lvs",
                "--noheadings",
                "--units",
                "b",
                "--nosuffix",
                "--separator",
                "|",
                "-o",
                "lv_name," + String.join(",", columns),
                name);
        for (String line :
                out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            List<String> fields = List.of(line.split("\\|", -1));
            rows.put(fields.get(0), fields.subList(1, fields.size()));
        }
        return rows;
    }

    /** The names of every LV in the group, sorted (hidden ones, e.g. the pool's tdata, not included). */
    public List<String> lvNames() {
        return lvm("lvs", "--noheadings", "-o", "lv_name", name)
                .lines()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .sorted()
                .toList();
    }

    /**
     * Fails the test unless lvm2's idea of thin pool {@code pool} is the kernel's: lvm2's
     * transaction id of the pool (its metadata) is the one the kernel's pool reports
     * ({@code dmsetup status}), and lvm2 counts as many thin volumes as it lists in the pool.
     */
    public void checkThinPool(String pool, String where) {
        checkThinPool(pool, where, false);
    }

    /**
     * {@link #checkThinPool(String, String)} after a kill: also accepts the state lvm2 itself
     * recovers from. A thin operation commits lvm2's metadata (the pool's next transaction id, and
     * the message the kernel is to get: create or delete a thin device) and then sends the message;
     * killed in between, lvm2's id is one ahead of the kernel's and the message stays in lvm2's
     * metadata until lvm2's next lvcreate or lvremove in the pool sends it (activating the pool
     * does not). Returns whether that was so.
     */
    public boolean checkThinPoolAfterAKill(String pool, String where) {
        return checkThinPool(pool, where, true);
    }

    private boolean checkThinPool(String pool, String where, boolean pendingMessageAllowed) {
        String[] fields = lvm("lvs", "--noheadings", "-o", "transaction_id,thin_count", name + "/" + pool)
                .strip()
                .split("\\s+");
        String dm = name.replace("-", "--") + "-" + pool.replace("-", "--");
        String status = kernelPoolStatus(dm);
        if (status == null) {
            lvm(
                    "lvchange",
                    "-ay",
                    name + "/" + pool); // an inactive pool: lvm2 activates it only if its metadata agrees
            status = kernelPoolStatus(dm);
        }
        if (status == null) {
            throw new AssertionError(where + ": the kernel has no thin pool " + dm);
        }
        String[] kernel = status.split("\\s+");
        if (kernel.length < 4 || !kernel[2].equals("thin-pool")) {
            throw new AssertionError(where + ": the kernel has no thin pool " + dm + ": " + status);
        }
        boolean pending = false;
        if (!kernel[3].equals(fields[0])) {
            pending = pendingMessageAllowed
                    && Long.parseLong(fields[0]) == Long.parseLong(kernel[3]) + 1
                    && metadata().contains("message1 {");
            if (!pending) {
                throw new AssertionError(where + ": thin pool " + name + "/" + pool + ": lvm2's transaction id "
                        + fields[0] + ", the kernel's " + kernel[3] + " (" + status + ")");
            }
        }
        long inPool = lvm("lvs", "--noheadings", "-o", "pool_lv", name)
                .lines()
                .map(String::strip)
                .filter(pool::equals)
                .count();
        if (Long.parseLong(fields[1]) != inPool) {
            throw new AssertionError(where + ": thin pool " + name + "/" + pool + ": thin_count " + fields[1] + ", "
                    + inPool + " listed");
        }
        return pending;
    }

    /**
     * What holds device-mapper devices open, for a failure's message: {@code dmsetup info -c}
     * (the open counts) and each process with a device-mapper node among its open files.
     */
    public static String openDevices() {
        StringBuilder b = new StringBuilder(
                HostTools.run(Map.of(), "dmsetup", "info", "-c").out());
        try (var procs = Files.list(Path.of("/proc"))) {
            for (Path proc : procs.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                try (var fds = Files.list(proc.resolve("fd"))) {
                    for (Path fd : fds.toList()) {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("/dev/dm-") || target.startsWith("/dev/mapper/")) {
                            b.append(proc.getFileName())
                                    .append(" (")
                                    .append(Files.readString(proc.resolve("cmdline"))
                                            .replace('\0', ' ')
                                            .strip())
                                    .append(") has ")
                                    .append(target)
                                    .append(" open\n");
                        }
                    }
                } catch (IOException e) {
                    // the process ended while we looked: it holds nothing now
                }
            }
        } catch (IOException e) {
            b.append("(/proc unreadable: ").append(e).append(")\n");
        }
        return b.toString();
    }

    /** The group's lvm2 metadata as text ({@code vgcfgbackup}). */
    private String metadata() {
        try {
            Path file = Files.createTempFile("vsm-vg-metadata", ".txt");
            try {
                lvm("vgcfgbackup", "-f", file.toString(), name);
                return Files.readString(file);
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code dmsetup status} of the pool's device (its {@code -tpool} layer when there is one), or null when there is none. */
    private static String kernelPoolStatus(String dm) {
        for (String device : List.of(dm + "-tpool", dm)) {
            HostTools.Result r = HostTools.run(Map.of(), "dmsetup", "status", device);
            if (r.ok() && r.out().contains(" thin-pool ")) {
                return r.out().strip();
            }
        }
        return null;
    }

    /**
     * Deactivates the group, runs {@code thin_check} on the pool's metadata (activated alone,
     * read-only), and activates the pool again; fails the test when the check fails.
     */
    public void checkThinPoolAfterReactivation(String pool) {
        lvm("vgchange", "-an", name);
        lvm("lvchange", "-ay", "-y", name + "/" + pool + "_tmeta");
        HostTools.Result check = HostTools.run(Map.of(), "thin_check", "/dev/" + name + "/" + pool + "_tmeta");
        lvm("lvchange", "-an", name + "/" + pool + "_tmeta");
        if (!check.ok()) {
            throw new AssertionError("thin_check of " + name + "/" + pool + ": " + (check.out() + check.err()).strip());
        }
        lvm("lvchange", "-ay", name + "/" + pool);
    }

    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        for (String[] argv : List.of(
                new String[] {LVM, "vgremove", "-f", "-y", name},
                new String[] {LVM, "pvremove", "-ff", "-y", device})) {
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
