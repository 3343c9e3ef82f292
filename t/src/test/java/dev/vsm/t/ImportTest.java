package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vsm import} into dir storages through the real cli/vsm and qemu-img; results checked with qemu-img compare. */
class ImportTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path raw;
    private Path images;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox);
        Path sources = Files.createDirectories(sandbox.resolve("sources"));
        raw = Images.raw(sources, "disk.raw", 24, 42);
        images = vsm.defaultLocal().resolve("images");
    }

    @Test
    void importsEveryFormatQemuImgReadsAndTheGuestSeesTheSameData() {
        List<String> formats = List.of("raw", "qcow2", "vmdk", "vdi", "vhdx");
        int disk = 0;
        for (String format : formats) {
            Path source =
                    format.equals("raw") ? raw : Images.convert(raw, format, sandbox.resolve("sources/disk." + format));
            for (String target : List.of("raw", "qcow2")) {
                Vsm.Result r = vsm.run("import", "local", "100", source.toString(), "--format", target, "--quiet")
                        .ok();
                String volid = "local:100/vm-100-disk-" + disk + "." + target;
                assertThat(r.out()).isEqualTo("successfully imported '" + volid + "'\n");
                Path volume = images.resolve("100/vm-100-disk-" + disk + "." + target);
                assertThat(QemuImg.info(volume).get("format").asText()).isEqualTo(target);
                assertThat(Images.same(source, format, volume, target))
                        .as("%s -> %s", format, target)
                        .isTrue();
                disk++;
            }
        }
        assertThat(vsm.run("list", "local").ok().lines()).hasSize(1 + 2 * formats.size());
        assertThat(Images.files(images.resolve("100"))).noneMatch(n -> n.startsWith("."));
    }

    @Test
    void aNewQcow2GetsTheStoragesOptionsAndADryRunShowsTheConvert() {
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %s
                    qcow2-subclusters: on
                    preallocation: falloc
                """.formatted(vsm.defaultLocal()));
        vsm.run("status").ok(); // makes the storage's directories
        Vsm.Result dry = vsm.run("import", "local", "100", raw.toString(), "--format", "qcow2", "--dry-run")
                .ok();
        String temp = images.resolve("100/.import.qcow2.vsm-tmp-") + "[\\w.]+-\\d+\\.\\d+-[0-9a-f]{8}";
        assertThat(dry.lines()).hasSize(4);
        assertThat(dry.lines().get(0)).isEqualTo("+ mkdir -p " + images.resolve("100"));
        assertThat(dry.lines().get(1))
                .matches("\\+ qemu-img convert -p -f raw -O qcow2 -o extended_l2=on,cluster_size=128k,"
                        + "preallocation=falloc -S 64k " + raw + " " + temp);
        assertThat(dry.lines().get(2)).matches("\\+ mv -n " + temp + " " + images.resolve("100/vm-100-disk-0.qcow2"));
        assertThat(dry.lines().get(3)).isEqualTo("would import 'local:100/vm-100-disk-0.qcow2'");
        assertThat(Images.files(images)).isEmpty();

        vsm.run("import", "local", "100", raw.toString(), "--format", "qcow2", "--name", "vm-100-cloud.qcow2", "-q")
                .ok();
        Path volume = images.resolve("100/vm-100-cloud.qcow2");
        assertThat(QemuImg.info(volume)
                        .path("format-specific")
                        .path("data")
                        .path("extended-l2")
                        .asBoolean())
                .isTrue();
        assertThat(QemuImg.info(volume).get("cluster-size").asInt()).isEqualTo(128 * 1024);
        assertThat(Images.same(raw, "raw", volume, "qcow2")).isTrue();
    }

    /** A new raw file reads zeros: zero runs are skipped, nothing is passed as --target-is-zero (qemu-img creates the file). */
    @Test
    void aDryRunIntoARawFileSkipsZeroRuns() {
        vsm.run("status").ok();
        Vsm.Result dry =
                vsm.run("import", "local", "100", raw.toString(), "--dry-run").ok();
        String temp = images.resolve("100/.import.raw.vsm-tmp-") + "[\\w.]+-\\d+\\.\\d+-[0-9a-f]{8}";
        assertThat(dry.lines()).hasSize(4);
        assertThat(dry.lines().get(1))
                .matches("\\+ qemu-img convert -p -f raw -O raw -o preallocation=off -S 64k " + raw + " " + temp);
        assertThat(Images.files(images)).isEmpty();
    }

    @Test
    void progressIsALinePerTenthOffATerminalAndQuietSilencesIt() {
        Vsm.Result r = vsm.run("import", "local", "100", raw.toString()).ok();
        assertThat(r.lines()).last().isEqualTo("successfully imported 'local:100/vm-100-disk-0.raw'");
        assertThat(r.lines().get(r.lines().size() - 2))
                .matches("convert disk\\.raw: 25165824 bytes in \\d+\\.\\d\\d s, [\\d.]+ MB/s");
        // a line when qemu-img's report passes another tenth (it reports in steps of its own)
        assertThat(r.lines().subList(0, r.lines().size() - 2))
                .hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(l -> assertThat(l)
                        .matches("convert disk\\.raw: [1-9]\\d% \\(\\d+ of 25165824 bytes\\), [\\d.-]+ MB/s, ETA .*"));
        assertThat(vsm.run("import", "local", "100", raw.toString(), "--quiet")
                        .ok()
                        .lines())
                .containsExactly("successfully imported 'local:100/vm-100-disk-1.raw'");
    }

    @Test
    void aVolumeIsASourceToo() {
        vsm.run("import", "local", "100", raw.toString(), "-q").ok();
        vsm.run("import", "local", "101", "local:100/vm-100-disk-0.raw", "--format", "qcow2", "-q")
                .ok();
        assertThat(Images.same(raw, "raw", images.resolve("101/vm-101-disk-0.qcow2"), "qcow2"))
                .isTrue();
    }

    @Test
    void badSourcesAndTargetsAreRefusedWithOneLineAndLeaveNothing() throws IOException {
        Path dir = sandbox.resolve("sources");
        vsm.run("import", "local", "100", dir.resolve("missing.qcow2").toString())
                .badInput("source '" + dir.resolve("missing.qcow2") + "' does not exist");
        Path dangling = Files.createSymbolicLink(dir.resolve("link.raw"), dir.resolve("gone.raw"));
        vsm.run("import", "local", "100", dangling.toString()).badInput("does not exist (a dangling symbolic link)");
        vsm.run("import", "local", "100", dir.toString())
                .badInput("source '" + dir + "' is a directory, not a disk image");
        Path text = Files.writeString(dir.resolve("readme.vmdk"), "# not a disk\n".repeat(80));
        vsm.run("import", "local", "100", text.toString())
                .badInput("source '" + text + "' is not a valid vmdk image (qemu-img reads it as raw data)");
        Path odd = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        vsm.run("import", "local", "100", odd.toString()).badInput("its 6 bytes are not whole 512-byte sectors");
        vsm.run("import", "local", "100", raw.toString(), "--source-format", "qcow2")
                .badInput("source '" + raw + "' is not a disk image qemu-img can read as qcow2: ");
        Path device = blockDevice();
        vsm.run("import", "local", "100", device.toString())
                .badInput("source '" + device + "' is a block device: pass --yes");
        vsm.run("import", "local", "100", raw.toString(), "--format", "subvol")
                .badInput("cannot import an image as format 'subvol'");
        vsm.run("import", "nosuch", "100", raw.toString()).badInput("storage 'nosuch' does not exist");
        vsm.run("import", "local", "1", raw.toString()).badInput("vmid: value does not look like a valid VM ID");
        assertThat(Images.files(images)).isEmpty();

        vsm.run("import", "local", "100", raw.toString(), "--name", "vm-100-disk-5.raw", "-q")
                .ok();
        byte[] before = Files.readAllBytes(images.resolve("100/vm-100-disk-5.raw"));
        Path qcow2 = Images.convert(raw, "qcow2", dir.resolve("other.qcow2"));
        vsm.run("import", "local", "100", qcow2.toString(), "--name", "vm-100-disk-5.raw")
                .badInput("disk image '" + images.resolve("100/vm-100-disk-5.raw") + "' already exists");
        vsm.run("import", "local", "100", qcow2.toString(), "--name", "vm-100-disk-6.qcow2")
                .badInput("illegal name 'vm-100-disk-6.qcow2' - wrong extension for format ('qcow2 != 'raw')");
        assertThat(Images.files(images.resolve("100"))).containsExactly("vm-100-disk-5.raw");
        assertThat(Files.readAllBytes(images.resolve("100/vm-100-disk-5.raw"))).isEqualTo(before);
    }

    @Test
    void anUnreadableSourceIsRefused() throws IOException {
        Path locked = Files.copy(raw, sandbox.resolve("sources/locked.raw"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        Vsm.Result r =
                new Vsm(sandbox).env("VSM_QEMU_IMG", "qemu-img").run("import", "local", "100", locked.toString());
        if (isRoot()) {
            r.ok(); // root reads it anyway: the check is on reading, not on mode bits
        } else {
            r.badInput("source '" + locked + "' cannot be read: permission denied");
            assertThat(Images.files(images)).isEmpty();
        }
    }

    @Test
    void aKilledImportLeavesNothing() throws Exception {
        Path marker = sandbox.resolve("converted");
        Path slowQemuImg = sandbox.resolve("slow-qemu-img");
        Files.writeString(slowQemuImg, """
                #!/bin/sh
                # the real qemu-img, but a convert then hangs, to be killed with its output in place
                if [ "$1" = convert ]; then qemu-img "$@" || exit $?; touch '%s'; exec sleep 60; fi
                exec qemu-img "$@"
                """.formatted(marker));
        Files.setPosixFilePermissions(slowQemuImg, PosixFilePermissions.fromString("rwxr-xr-x"));
        vsm.env("VSM_QEMU_IMG", slowQemuImg.toString());

        ProcessBuilder pb = new ProcessBuilder(
                        Vsm.LAUNCHER.toString(), "import", "local", "100", raw.toString(), "--format", "qcow2")
                .directory(sandbox.toFile())
                .redirectOutput(sandbox.resolve("out.txt").toFile())
                .redirectError(sandbox.resolve("err.txt").toFile());
        pb.environment().putAll(vsm.environment());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(marker) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(marker).as("the convert ran").exists();
            assertThat(Images.files(images.resolve("100")))
                    .singleElement()
                    .asString()
                    .startsWith(".import.qcow2.vsm-tmp-");
            p.destroy(); // SIGTERM to the JVM (the launcher execs java)
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        String err = Files.readString(sandbox.resolve("err.txt"), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).isNotZero();
        assertThat(err.strip().lines()).singleElement().asString().contains("stopped");
        assertThat(Images.files(images))
                .as("no image, no temporary file, no guest directory")
                .isEmpty();
        assertThat(vsm.run("list", "local").ok().lines()).hasSize(1);
    }

    /**
     * A vsm killed with SIGKILL after its qemu-img wrote the temporary file, before the file got the
     * volume's name, leaves only that temporary file: never listed, removed by the next import into
     * that directory and by {@code vsm cleanup}.
     */
    @Test
    void aKilledImportLeavesOnlyATemporaryFileThatTheNextRunRemoves() throws Exception {
        Path big = Images.raw(sandbox.resolve("sources"), "big.raw", 256, 7);
        Path guest = images.resolve("100");
        killBeforePublishing(big, guest);
        assertThat(vsm.run("list", "local").ok().lines()).as("nothing listed").hasSize(1);

        vsm.run("import", "local", "100", raw.toString(), "-q").ok();
        assertThat(Images.files(guest))
                .as("the next import removed the killed one's file")
                .containsExactly("vm-100-disk-0.raw");

        killBeforePublishing(big, guest);
        Vsm.Result cleanup = vsm.run("cleanup", "local").ok();
        assertThat(cleanup.out()).contains("images/100/.import.raw.vsm-tmp-");
        assertThat(Images.files(guest)).containsExactly("vm-100-disk-0.raw");
        assertThat(vsm.run("cleanup", "local").ok().out()).startsWith("nothing to clean up");
    }

    /**
     * Imports {@code source}, stops vsm where it is about to give the converted temporary file the
     * volume's name (the pause point {@code move}: qemu-img has written it whole) and kills it there.
     * A poll for the running convert lost the race on a loaded machine, where the convert of a
     * sparse image ended before the poll looked.
     */
    private void killBeforePublishing(Path source, Path guest) {
        Vsm.Started started = vsm.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=move")
                .start("import", "local", "100", source.toString());
        vsm.env("VSM_JAVA_OPTS", ""); // the next commands run through
        started.awaitPaused(120);
        assertThat(Images.files(guest)).anyMatch(n -> n.startsWith(".import.raw.vsm-tmp-"));
        started.process().destroyForcibly();
        assertThat(started.finish().exit()).isNotZero();
        assertThat(Images.files(guest))
                .anyMatch(n -> n.startsWith(".import.raw.vsm-tmp-"))
                .noneMatch(n -> n.startsWith("vm-100-disk-1"));
    }

    private static Path blockDevice() throws IOException {
        Optional<Path> device;
        try (Stream<Path> dev = Files.list(Path.of("/dev"))) {
            device = dev.filter(ImportTest::isBlockDevice).sorted().findFirst();
        }
        assertThat(device).as("a block device node under /dev").isPresent();
        return device.get();
    }

    private static boolean isBlockDevice(Path p) {
        try {
            return Files.readAttributes(p, "unix:mode").get("mode") instanceof Integer m && (m & 0170000) == 0060000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
