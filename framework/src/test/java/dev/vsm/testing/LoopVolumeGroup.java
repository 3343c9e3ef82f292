package dev.vsm.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real LVM volume group on a loop device, for tests: a sparse file, {@code losetup -f --show},
 * {@code pvcreate} and {@code vgcreate}, with lvm2 pointed (through {@code LVM_SYSTEM_DIR}) at a
 * private {@code lvm.conf} that never activates anything (these machines have no device-mapper),
 * sees only this loop device and keeps no metadata backups. Everything is torn down afterwards
 * ({@code vgremove}, {@code pvremove}, {@code losetup -d}, files deleted), also when the test failed.
 *
 * <p>Use it as a JUnit 5 extension, one group per test (instance field) or per class (static field):
 * <pre>{@code
 * @RegisterExtension
 * final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);
 * }</pre>
 * or on its own with {@link #create()} and {@link #close()}. Code under test must see the same
 * lvm2 configuration: pass {@link #environment()} to the process or context that runs lvm2.
 *
 * <p>It needs root, a free loop device and lvm2. Without them the test is skipped with the
 * reason, except under CI ({@code CI=true}), where it fails: CI must not pass by skipping.
 */
public final class LoopVolumeGroup
        implements AutoCloseable, BeforeEachCallback, AfterEachCallback, BeforeAllCallback, AfterAllCallback {
    private static final String LVM = "/sbin/lvm";
    private static final long MIB = 1024 * 1024;

    private final long sizeBytes;
    private final String name;
    private boolean perClass;
    private Path dir;
    private LoopDevice loop;
    private boolean pvCreated;
    private boolean vgCreated;

    private LoopVolumeGroup(long sizeBytes, String name) {
        this.sizeBytes = sizeBytes;
        this.name = name;
    }

    /** A group of {@code mib} MiB (lvm2 keeps about 1 MiB for metadata; extents are 4 MiB) with a unique name. */
    public static LoopVolumeGroup ofMiB(long mib) {
        return new LoopVolumeGroup(
                mib * MIB, "vsmtest" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36));
    }

    /** The volume group's name (unique per instance, {@code vsmtest...}). */
    public String name() {
        return name;
    }

    /** The loop device holding the PV, e.g. {@code /dev/loop3}. */
    public String device() {
        return requireCreated(loop).path().toString();
    }

    /** The sparse file behind the loop device. */
    public Path backingFile() {
        return requireCreated(loop).file();
    }

    /** The directory holding {@code lvm.conf}: what {@code LVM_SYSTEM_DIR} points at. */
    public Path systemDir() {
        return requireCreated(dir).resolve("lvm");
    }

    /** The environment lvm2 needs to see this group: set it for vsm and for every lvm2 tool run. */
    public Map<String, String> environment() {
        return Map.of("LVM_SYSTEM_DIR", systemDir().toString(), "LVM_SUPPRESS_FD_WARNINGS", "1");
    }

    // --- JUnit

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        create();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!perClass) {
            create();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            close();
        }
    }

    // --- set-up and tear-down

    /** Makes the loop device, lvm.conf, PV and VG. On any failure, undoes what was done and fails (or skips, outside CI). */
    public LoopVolumeGroup create() {
        HostTools.require("LVM volume groups on loop devices", LVM);
        try {
            loop = LoopDevice.create(sizeBytes);
            dir = Files.createTempDirectory("vsm-lvm-");
            Files.writeString(Files.createDirectories(systemDir()).resolve("lvm.conf"), lvmConf(device()));
            mustRun(LVM, "pvcreate", "-q", device());
            pvCreated = true;
            mustRun(LVM, "vgcreate", "-q", name, device());
            vgCreated = true;
            return this;
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * The private lvm.conf: no activation (no device-mapper here; the tests that need it run in a
     * guest with a real kernel, {@code dev.vsm.t.guest.InGuest}), only this loop device, no udev
     * (there is none in the test container), no devices file, no metadata backups.
     */
    static String lvmConf(String device) {
        return """
                global {
                    activation = 0
                }
                devices {
                    filter = [ "a|^%s$|", "r|.*|" ]
                    global_filter = [ "a|^%s$|", "r|.*|" ]
                    obtain_device_list_from_udev = 0
                    use_devicesfile = 0
                }
                activation {
                    udev_sync = 0
                    udev_rules = 0
                    monitoring = 0
                }
                backup {
                    backup = 0
                    archive = 0
                }
                """.formatted(device, device);
    }

    /** Removes the VG (with its LVs), the PV, the loop device and the files; every step is tried, failures are reported together. */
    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        if (vgCreated) {
            tryRun(problems, LVM, "vgremove", "-f", "-y", name);
            vgCreated = false;
        }
        if (pvCreated) {
            tryRun(problems, LVM, "pvremove", "-f", "-y", device());
            pvCreated = false;
        }
        if (loop != null) {
            try {
                loop.close();
            } catch (AssertionError e) {
                problems.add(e.getMessage());
            }
            loop = null;
        }
        if (dir != null) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                problems.add("delete " + dir + ": " + e.getMessage());
            }
            dir = null;
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("tearing down test volume group " + name + ": " + String.join("; ", problems));
        }
    }

    // --- looking at the result with real lvm2

    /** Runs an lvm2 command ({@code lvs}, {@code lvcreate}, ...) against this group's configuration; fails the test if it fails. */
    public String lvm(String... args) {
        String[] argv = new String[args.length + 1];
        argv[0] = LVM;
        System.arraycopy(args, 0, argv, 1, args.length);
        return mustRun(argv);
    }

    /** The names of every LV in the group, sorted. */
    public List<String> lvNames() {
        return lvm("lvs", "--noheadings", "-o", "lv_name", name)
                .lines()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .sorted()
                .toList();
    }

    /** One LV's size in bytes, if it exists. */
    public Optional<Long> lvSize(String lv) {
        return field(lv, "lv_size").map(Long::parseLong);
    }

    /** One LV's tags, as {@code lvs -o tags} shows them. */
    public List<String> tags(String lv) {
        return field(lv, "tags")
                .map(t -> t.isEmpty() ? List.<String>of() : Arrays.asList(t.split(",")))
                .orElseThrow(() -> new AssertionError("no LV " + name + "/" + lv));
    }

    /** An LV's UUID (which a rename keeps). */
    public String uuid(String lv) {
        return field(lv, "lv_uuid").orElseThrow(() -> new AssertionError("no LV " + name + "/" + lv));
    }

    /** The group's free bytes. */
    public long freeBytes() {
        return Long.parseLong(lvm("vgs", "--noheadings", "--units", "b", "--nosuffix", "-o", "vg_free", name)
                .strip());
    }

    /** Creates an LV directly with lvm2 (to set up a state, e.g. a leftover {@code del-} LV). */
    public void createLv(String lv, long mib) {
        lvm("lvcreate", "-q", "-Wn", "--yes", "-L", mib + "m", "-n", lv, name);
    }

    private Optional<String> field(String lv, String column) {
        for (String line : lvm(
                        "lvs",
                        "--noheadings",
                        "--units",
                        "b",
                        "--nosuffix",
                        "--separator",
                        ":",
                        "-o",
                        "lv_name," + column,
                        name)
                .lines()
                .toList()) {
            String[] f = line.strip().split(":", -1);
            if (f.length == 2 && f[0].equals(lv)) {
                return Optional.of(f[1].strip());
            }
        }
        return Optional.empty();
    }

    // --- processes

    private <T> T requireCreated(T value) {
        if (value == null) {
            throw new IllegalStateException("volume group " + name + " is not set up (create() first)");
        }
        return value;
    }

    private String mustRun(String... argv) {
        return HostTools.mustRun(environmentIfSet(), argv);
    }

    private void tryRun(List<String> problems, String... argv) {
        HostTools.Result r = HostTools.run(environmentIfSet(), argv);
        if (!r.ok()) {
            problems.add(String.join(" ", argv) + ": exit " + r.exit() + ": " + (r.out() + r.err()).strip());
        }
    }

    private Map<String, String> environmentIfSet() {
        return dir == null ? Map.of("LVM_SUPPRESS_FD_WARNINGS", "1") : environment();
    }
}
