package dev.vsm.t.guest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A qemu guest with a real kernel (Debian's, with device-mapper, thin pools and dm-flakey), for
 * the tests these machines' kernel cannot run: it boots under TCG with the host's {@code /}
 * shared read-only over 9p (a tmpfs overlay on top, so the guest sees this checkout, Java, lvm2 and
 * qemu-img at the host's paths), raw files as virtio disks {@code /dev/vda}, {@code /dev/vdb}, ...,
 * runs one shell scenario and powers off. The scenario's output and exit status come back through a
 * second, writable 9p share, seen in the guest as {@code /vsmio} (and as {@link Boot#io()} here).
 *
 * <p>The kernel and the initramfs come from {@code t/guest/build-guest.sh}, which keeps them in a
 * cache directory between runs. qemu is always killed (by its pid) and the boot's files removed,
 * also when the scenario fails or the guest hangs past the timeout.
 */
public final class Guest {
    static final Path HOME =
            Path.of(System.getProperty("vsm.home", "..")).toAbsolutePath().normalize();
    private static final Path BUILD = HOME.resolve("t/guest/build-guest.sh");
    private static final String QEMU = "/usr/bin/qemu-system-x86_64";
    private static final long MIB = 1024 * 1024;

    private Guest() {}

    /** What one boot produced. */
    public record Outcome(int status, String output, String console, Duration took) {
        /** The last lines of the output and the console, for a failure message. */
        public String tail() {
            return "guest output (last lines):\n" + last(output, 60) + "\nguest console (last lines):\n"
                    + last(console, 20);
        }

        private static String last(String text, int lines) {
            List<String> all = text.lines().toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
    }

    /**
     * One virtio disk: a sparse raw file of {@code mib} MiB.
     *
     * @param maxWriteZeroesSectors the disk's WRITE ZEROES limit in 512-byte sectors as the guest
     *                              sees it ({@code queue/write_zeroes_max_bytes}), 0 for qemu's default
     */
    public record Disk(long mib, long maxWriteZeroesSectors) {
        public static Disk mib(long mib) {
            return new Disk(mib, 0);
        }

        /** The same disk, taking WRITE ZEROES of at most {@code mib} MiB. */
        public Disk maxWriteZeroesMiB(long mib) {
            return new Disk(this.mib, mib * 2048);
        }
    }

    /** A boot in progress: its share directory, to put files in before {@link #run}. */
    public static final class Boot implements AutoCloseable {
        private final Path dir;
        private final List<Disk> disks;
        private Process qemu;

        private Boot(Path dir, List<Disk> disks) {
            this.dir = dir;
            this.disks = disks;
        }

        /** The writable share: {@code /vsmio} in the guest. */
        public Path io() {
            return dir.resolve("io");
        }

        /**
         * Boots, runs {@code scenario} (a shell script run by {@code /bin/sh} as root in the guest,
         * with {@code /run} on tmpfs (and {@code /tmp} the host's under the overlay, as a
         * checkout may live there) and {@code LVM_SYSTEM_DIR} pointing at an
         * lvm.conf that activates LVs without udev and sees only the virtio disks) and waits for the
         * power-off, at most {@code timeout}.
         *
         * @throws GuestFailure when the guest did not come back with a status (no boot, a hang)
         */
        public Outcome run(String scenario, Duration timeout) throws GuestFailure {
            Path cache = kernel();
            long start = System.nanoTime();
            try {
                Files.writeString(io().resolve("scenario"), scenario);
                Files.writeString(io().resolve("init"), INIT);
                List<String> argv = new ArrayList<>(List.of(
                        QEMU,
                        "-accel",
                        "tcg",
                        "-smp",
                        "2",
                        "-m",
                        "2048",
                        "-nodefaults",
                        "-nographic",
                        "-no-reboot",
                        "-kernel",
                        cache.resolve("vmlinuz").toString(),
                        "-initrd",
                        cache.resolve("initramfs.cpio.gz").toString(),
                        // no_timer_check: on a loaded host TCG can fail the kernel's IO-APIC timer check, a panic at
                        // boot
                        "-append",
                        "console=ttyS0 panic=-1 quiet no_timer_check",
                        "-serial",
                        "file:" + dir.resolve("console.log"),
                        "-virtfs",
                        "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
                        "-virtfs",
                        "local,path=" + io() + ",mount_tag=vsmio,security_model=none,multidevs=remap"));
                for (int i = 0; i < disks.size(); i++) {
                    Path disk = dir.resolve("disk" + i + ".raw");
                    try (var f = new java.io.RandomAccessFile(disk.toFile(), "rw")) {
                        f.setLength(disks.get(i).mib() * MIB); // sparse
                    }
                    argv.addAll(List.of(
                            "-drive",
                            "file=" + disk + ",if=none,id=d" + i
                                    + ",format=raw,discard=unmap,detect-zeroes=unmap,cache=none",
                            "-device",
                            "virtio-blk-pci,drive=d" + i
                                    + (disks.get(i).maxWriteZeroesSectors() > 0
                                            ? ",max-write-zeroes-sectors="
                                                    + disks.get(i).maxWriteZeroesSectors()
                                            : "")));
                }
                qemu = new ProcessBuilder(argv)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("qemu.log").toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
                boolean ended = qemu.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
                if (!ended) {
                    kill();
                }
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                String output = readIfThere(io().resolve("output"));
                String console = readIfThere(dir.resolve("console.log")) + readIfThere(dir.resolve("qemu.log"));
                Path status = io().resolve("status");
                if (!Files.exists(status) || Files.readString(status).isBlank()) {
                    Outcome o = new Outcome(-1, output, console, took);
                    throw new GuestFailure((ended
                                    ? "the guest powered off without a status (qemu exit " + qemu.exitValue() + ")"
                                    : "the guest did not finish in " + timeout.toSeconds() + " s (qemu killed)")
                            + "\n" + o.tail());
                }
                return new Outcome(Integer.parseInt(Files.readString(status).strip()), output, console, took);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new GuestFailure("interrupted while the guest ran");
            } finally {
                kill();
            }
        }

        /** Kills qemu (the process this boot started, by its pid) and waits for it to end. */
        private void kill() {
            if (qemu != null && qemu.isAlive()) {
                qemu.destroyForcibly();
                try {
                    qemu.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** Kills qemu if it still runs and removes the boot's files (disks, share, logs). */
        @Override
        public void close() {
            kill();
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("removing the guest's files in " + dir, e);
            }
        }
    }

    /** The guest could not be booted or did not come back. */
    public static final class GuestFailure extends Exception {
        private static final long serialVersionUID = 1L;

        GuestFailure(String message) {
            super(message);
        }
    }

    /** Why no guest can be booted here (not root, qemu missing), or empty when one can. */
    public static Optional<String> unavailable() {
        if (!dev.vsm.testing.HostTools.isRoot()) {
            return Optional.of("root (the guest's kernel is fetched into a system cache and its disks hold LVM)");
        }
        if (!Files.isExecutable(Path.of(QEMU))) {
            return Optional.of(QEMU + " (apt-get install qemu-system-x86; t/run-tests installs it)");
        }
        if (!Files.isExecutable(Path.of("/bin/busybox"))) {
            return Optional.of("/bin/busybox (apt-get install busybox-static; t/run-tests installs it)");
        }
        return Optional.empty();
    }

    /** A boot with these virtio disks: {@code /dev/vda}, {@code /dev/vdb}, ... in the order given. */
    public static Boot withDisks(List<Disk> disks) {
        try {
            Path base = Files.createDirectories(HOME.resolve("t/target/guest"));
            Path dir = Files.createTempDirectory(base, "boot-");
            Files.createDirectories(dir.resolve("io"));
            return new Boot(dir, List.copyOf(disks));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path kernel() throws GuestFailure {
        try {
            Process p = new ProcessBuilder(BUILD.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new GuestFailure(
                        BUILD + " failed (exit " + (p.isAlive() ? "none" : p.exitValue()) + "): see its stderr above");
            }
            return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
        } catch (IOException e) {
            throw new GuestFailure("cannot run " + BUILD + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GuestFailure("interrupted while preparing the guest's kernel");
        }
    }

    private static String readIfThere(Path file) throws IOException {
        return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
    }

    /**
     * The guest's init, run by {@code /bin/sh} as pid 1 once the overlay is its root: scratch file
     * systems, an lvm.conf for the virtio disks (no udev in the guest: lvm2 makes the device nodes
     * itself), then the scenario with its output and status on the share, then power-off.
     */
    private static final String INIT = """
            #!/bin/sh
            export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
            # /tmp stays the host's, under the overlay: the checkout (and its build) may live there
            mount -t tmpfs tmpfs /run
            mkdir -p /run/lock /run/lvm /run/vsm-lvm /run/vsm-locks
            cat > /run/vsm-lvm/lvm.conf <<'LVM'
            devices {
                filter = [ "a|^/dev/vd[a-z]+$|", "r|.*|" ]
                global_filter = [ "a|^/dev/vd[a-z]+$|", "r|.*|" ]
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
            LVM
            export LVM_SYSTEM_DIR=/run/vsm-lvm LVM_SUPPRESS_FD_WARNINGS=1 VSM_LOCK_DIR=/run/vsm-locks
            ( /bin/sh /vsmio/scenario ) > /vsmio/output 2>&1 < /dev/null
            echo $? > /vsmio/status
            sync
            echo o > /proc/sysrq-trigger
            sleep 60
            """;
}
