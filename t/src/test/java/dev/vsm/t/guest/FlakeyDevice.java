package dev.vsm.t.guest;

import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An ext4 file system on a dm-flakey device over one of the guest's virtio disks, whose power
 * can be cut: {@link #cut} switches the table, without flushing or freezing the file system, to
 * one that drops every write (they "succeed" and vanish, as in a power cut) or fails it with EIO;
 * {@link #reboot} unmounts (what the page cache still writes is dropped too), removes the device
 * and makes it again over the disk as it was at the cut, and mounts it (ext4 replays its
 * journal). For tests that run {@link InGuest}. {@link #close()} unmounts and removes the device.
 */
public final class FlakeyDevice implements AutoCloseable {
    /** How the power goes. */
    public enum Cut {
        /** Writes are acknowledged and lost, as a disk's volatile cache loses them. */
        DROP_WRITES("drop_writes"),
        /** Writes fail with EIO, as a disk that went away. */
        ERROR_WRITES("error_writes");

        private final String feature;

        Cut(String feature) {
            this.feature = feature;
        }
    }

    private final String disk;
    private final String name;
    private final long sectors;
    private final Path mount;
    private boolean mounted;
    private boolean exists;

    private FlakeyDevice(String disk, String name, long sectors, Path mount) {
        this.disk = disk;
        this.name = name;
        this.sectors = sectors;
        this.mount = mount;
    }

    /** A new ext4 file system on a flakey device over {@code disk} (e.g. {@code /dev/vda}), mounted on {@code mount}. */
    public static FlakeyDevice ext4(String disk, Path mount) {
        if (!InGuest.inside()) {
            throw new IllegalStateException("a FlakeyDevice needs the guest's kernel (run the test InGuest)");
        }
        long sectors = Long.parseLong(
                HostTools.mustRun(Map.of(), "blockdev", "--getsz", disk).strip());
        FlakeyDevice d = new FlakeyDevice(
                disk, "vsmflakey" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30), 36), sectors, mount);
        d.create();
        HostTools.mustRun(Map.of(), "mkfs.ext4", "-q", "-F", d.device());
        d.mountIt();
        return d;
    }

    /** The mount point. */
    public Path mount() {
        return mount;
    }

    /** The flakey device's node. */
    public String device() {
        return "/dev/mapper/" + name;
    }

    /** Writes back what the file system holds in memory (the state a round starts from, as after a clean shutdown). */
    public void sync() {
        HostTools.mustRun(Map.of(), "sync", "-f", mount.toString());
    }

    /** Cuts the power: from now on every write is dropped or fails, nothing in flight is flushed first. */
    public void cut(Cut how) {
        HostTools.mustRun(Map.of(), "dmsetup", "suspend", "--nolockfs", "--noflush", name);
        // up 0 s, down 3600 s: down from the start; the feature says what a write does while down
        HostTools.mustRun(
                Map.of(),
                "dmsetup",
                "load",
                name,
                "--table",
                "0 " + sectors + " flakey " + disk + " 0 0 3600 1 " + how.feature);
        HostTools.mustRun(Map.of(), "dmsetup", "resume", name);
    }

    /** Unmounts, makes the device again over the disk as the cut left it, and mounts it. */
    public void reboot() {
        unmount();
        remove();
        create();
        mountIt();
    }

    private void create() {
        HostTools.mustRun(Map.of(), "dmsetup", "create", name, "--table", "0 " + sectors + " linear " + disk + " 0");
        exists = true;
        HostTools.mustRun(Map.of(), "dmsetup", "mknodes", name); // no udev in the guest to make /dev/mapper/<name>
    }

    private void mountIt() {
        try {
            Files.createDirectories(mount);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        HostTools.mustRun(Map.of(), "mount", "-t", "ext4", device(), mount.toString());
        mounted = true;
    }

    private void unmount() {
        if (mounted) {
            HostTools.mustRun(Map.of(), "umount", mount.toString());
            mounted = false;
        }
    }

    private void remove() {
        if (exists) {
            HostTools.mustRun(Map.of(), "dmsetup", "remove", name);
            exists = false;
            HostTools.mustRun(Map.of(), "dmsetup", "mknodes"); // and none to remove its node
        }
    }

    @Override
    public void close() {
        unmount();
        remove();
    }
}
