package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.StandInNodes;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Import, import-stream and export with an lvm storage on a real VG (loop device), through the
 * real cli/vsm. These machines cannot activate LVs, so the convert's argv is checked with
 * {@code --dry-run}, the LV's size with the real {@code lvs}, and where data must really be
 * written a symlink {@code /dev/<vg>/<lv>} to a scratch loop device stands in for the LV's node.
 */
@RootTest
class LvmImportTest {
    private static final long MIB = 1 << 20;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @RegisterExtension
    final StandInNodes nodes = new StandInNodes(vg);

    @TempDir
    Path sandbox;

    private Path source;

    @BeforeEach
    void source() throws IOException {
        source = Images.raw(Files.createDirectories(sandbox.resolve("sources")), "disk.raw", 10, 11);
    }

    private String lv(String name) {
        return "/dev/" + vg.name() + "/" + name;
    }

    /** The import's mark on its LV, as the dry run prints it (its token is random). */
    private static final String TAG = "vsm-importing\\.[0-9a-f]{16}\\.[\\w-]+";

    @Test
    void aThickLvNotKnownToReadZerosGetsEveryZeroWritten() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        Vsm.Result dry =
                vsm.run("import", "san", "100", source.toString(), "--dry-run").ok();
        assertThat(dry.lines()).hasSize(6);
        assertThat(dry.lines().get(0))
                .matches(java.util.regex.Pattern.quote(
                                "+ /sbin/lvcreate -aly -Wy --yes --size 10240k --name vm-100-disk-0 --setautoactivation n --addtag pve-vm-100 ")
                        + "--addtag " + TAG + " " + vg.name());
        assertThat(dry.lines().subList(1, 4))
                .containsExactly(
                        "+ /sbin/lvchange -aey " + lv("vm-100-disk-0"),
                        "+ /sbin/lvchange --refresh " + lv("vm-100-disk-0"),
                        "+ qemu-img convert -p -n -f raw -O raw -S 0 " + source + " " + lv("vm-100-disk-0"));
        String tag = dry.lines().get(0).replaceFirst(".* --addtag (vsm-importing\\S+) .*", "$1");
        assertThat(dry.lines().subList(4, 6))
                .containsExactly(
                        "+ /sbin/lvchange --deltag " + tag + " " + vg.name() + "/vm-100-disk-0",
                        "would import 'san:vm-100-disk-0'");
        assertThat(vg.lvNames()).isEmpty();
    }

    /** An image that names data outside itself is refused before any LV is made (UntrustedImageTest covers every kind on dir). */
    @Test
    void anImageNamingAHostFileIsRefusedBeforeAnLvIsMade() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        Path backed = sandbox.resolve("sources/backed.qcow2");
        Images.run(
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-u",
                "-F",
                "raw",
                "-b",
                source.toString(),
                backed.toString(),
                "10M");
        vsm.run("import", "san", "100", backed.toString(), "--dry-run")
                .badInput("its qcow2 header names the backing file '" + source + "'");
        vsm.run("import", "san", "100", backed.toString()).badInput("names the backing file");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void anLvOnASaferemoveStorageReadsZerosAndZeroRunsAreSkipped() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true");
        Path qcow2 = Images.convert(source, "qcow2", sandbox.resolve("sources/disk.qcow2"));
        assertThat(vsm.run("import", "san", "100", qcow2.toString(), "--dry-run")
                        .ok()
                        .lines())
                .contains("+ qemu-img convert -p -n --target-is-zero -f qcow2 -O raw -S 64k " + qcow2 + " "
                        + lv("vm-100-disk-0"));
    }

    /**
     * A vsm killed with SIGKILL while qemu-img converts leaves a real LV that still carries the
     * import's tag: not listed, left alone while its import runs, removed by {@code vsm cleanup}
     * and by the next import once no live process owns it.
     */
    @Test
    void aKilledImportLeavesATaggedLvThatIsNotListedAndIsRemovedLater() throws Exception {
        Path marker = sandbox.resolve("converting");
        Vsm vsm = LvmSandbox.vsm(sandbox, vg)
                .env("VSM_QEMU_IMG", hangingConvert(marker).toString())
                .env("VSM_NODE", "node1");

        Vsm.Started first = startImportAndWaitForConvert(vsm, marker);
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        assertThat(vg.tags("vm-100-disk-0"))
                .hasSize(2)
                .contains("pve-vm-100")
                .anySatisfy(t -> assertThat(t).matches("vsm-importing\\.[0-9a-f]{16}\\.node1"));
        assertThat(vsm.run("list", "san").ok().lines())
                .as("an import in progress is not listed")
                .hasSize(1);
        assertThat(vsm.run("cleanup", "san").ok().out()).as("its claim is held").startsWith("nothing to clean up");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        Vsm.Started other = vsm.env("VSM_NODE", "node2").start("cleanup", "san");
        assertThat(other.finish().out())
                .as("another node's import is not this node's to judge")
                .startsWith("nothing to clean up");
        vsm.env("VSM_NODE", "node1");
        kill(first);

        assertThat(vsm.run("list", "san").ok().lines())
                .as("a killed import is not listed")
                .hasSize(1);
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        assertThat(cleanup.out()).contains("vm-100-disk-0");
        assertThat(vg.lvNames()).isEmpty();

        Files.delete(marker);
        kill(startImportAndWaitForConvert(vsm, marker));
        java.util.List<String> secondTags = vg.tags("vm-100-disk-0");
        Files.delete(marker);
        kill(startImportAndWaitForConvert(vsm, marker));
        assertThat(vg.lvNames())
                .as("the third import removed the second's LV before it made its own")
                .containsExactly("vm-100-disk-0");
        assertThat(vg.tags("vm-100-disk-0")).isNotEqualTo(secondTags);
        vsm.env("VSM_QEMU_IMG", "qemu-img");
        Vsm.Result next = vsm.run("import", "san", "100", source.toString());
        assertThat(next.exit()).as("no LV node here: the convert fails").isEqualTo(1);
        assertThat(next.out())
                .contains("removing " + vg.name() + "/vm-100-disk-0, left by an import that did not finish");
        assertThat(vg.lvNames())
                .as("the next import removed the leftover, and its own failed LV")
                .isEmpty();
    }

    /**
     * An import writes its LV without the storage lock, so meanwhile another process (or node) may
     * free that LV and make a new volume under its name. When the convert then fails, the import
     * frees only the LV that carries its own tag: the new volume stays, and the failure says so.
     * vsm stops itself before qemu-img (the test pause point) while the LV is swapped. Before, the
     * import freed the name, and with it the new volume.
     */
    @Test
    void aFailedImportLeavesTheVolumeMadeUnderItsLvsNameMeanwhile() throws Exception {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg).env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=qemu-img");
        Vsm.Started importing = vsm.start("import", "san", "100", source.toString());
        try {
            importing.awaitPaused(60);
            assertThat(vg.tags("vm-100-disk-0")).anySatisfy(t -> assertThat(t).matches(TAG));
            vg.lvm("lvremove", "-f", vg.name() + "/vm-100-disk-0");
            vg.createLv("vm-100-disk-0", 8);
            String made = vg.uuid("vm-100-disk-0");
            new ProcessBuilder(
                            "kill", "-CONT", Long.toString(importing.process().pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
            Vsm.Result r = importing.finish(60);
            assertThat(r.exit()).as("no LV node here: the convert fails; %s", r).isEqualTo(1);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .endsWith("('san:vm-100-disk-0' no longer holds the LV this import made: left it alone)");
            assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
            assertThat(vg.uuid("vm-100-disk-0")).isEqualTo(made);
        } finally {
            importing.process().destroyForcibly();
        }
    }

    /** On a saferemove storage a killed import's LV is removed as any volume there: renamed del-, zeroed, removed. */
    @Test
    void aKilledImportOnASaferemoveStorageIsZeroedBeforeItGoes() throws Exception {
        Path marker = sandbox.resolve("converting");
        Vsm vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true")
                .env("VSM_QEMU_IMG", hangingConvert(marker).toString());
        kill(startImportAndWaitForConvert(vsm, marker));
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        assertThat(cleanup.out()).contains("zero-out data on image vm-100-disk-0");
        assertThat(vg.lvNames()).isEmpty();
    }

    /** import-stream into an LV: the same tag, so a SIGKILL while the stream is written leaves an LV that is not listed. */
    @Test
    void aStreamImportKilledWithSigkillLeavesATaggedLvThatCleanupRemoves() throws Exception {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        byte[] data = Files.readAllBytes(source);
        Path fifo = sandbox.resolve("stream.fifo");
        Images.run("mkfifo", fifo.toString());
        try (LoopDevice device = LoopDevice.create(12 * MIB)) {
            nodes.link("vm-100-disk-0", device);
            Vsm.Started started = vsm.start("import-stream", "san:vm-100-disk-0", "raw+size", fifo.toString());
            try (var feed = Files.newOutputStream(fifo)) {
                feed.write(ByteBuffer.allocate(8)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(data.length)
                        .array());
                feed.write(data, 0, data.length / 2);
                feed.flush();
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
                while (vg.lvNames().isEmpty() && started.process().isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                kill(started);
            } catch (IOException broken) {
                // the reader died first: the pipe broke
            }
        }
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        assertThat(vg.tags("vm-100-disk-0")).anySatisfy(t -> assertThat(t).startsWith("vsm-importing."));
        assertThat(vsm.run("list", "san").ok().lines()).hasSize(1);
        assertThat(vsm.run("cleanup", "san").ok().out()).contains("vm-100-disk-0");
        assertThat(vg.lvNames()).isEmpty();
    }

    /** A qemu-img whose convert announces itself and then hangs. */
    private Path hangingConvert(Path marker) throws IOException {
        Path script = sandbox.resolve("hanging-qemu-img");
        Files.writeString(script, """
                #!/bin/sh
                if [ "$1" = convert ]; then touch '%s'; exec sleep 120; fi
                exec qemu-img "$@"
                """.formatted(marker));
        Files.setPosixFilePermissions(script, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private Vsm.Started startImportAndWaitForConvert(Vsm vsm, Path marker) throws InterruptedException {
        Vsm.Started started = vsm.start("import", "san", "100", source.toString());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(marker) && started.process().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(marker).as("the convert started").exists();
        return started;
    }

    /** SIGKILL to vsm and the commands it runs, by pid. */
    private static void kill(Vsm.Started started) {
        java.util.List<ProcessHandle> children =
                started.process().toHandle().descendants().toList();
        started.process().destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        assertThat(started.finish().exit()).isNotZero();
        children.forEach(c -> c.onExit().join());
    }

    @Test
    void theLvIsSizedForTheImageAndHoldsItsDataOverOldData() throws IOException {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        try (LoopDevice device = LoopDevice.create(12 * MIB)) {
            device.fillRandom(5); // a previous owner's data
            nodes.link("vm-100-disk-0", device);
            Path qcow2 = Images.convert(source, "qcow2", sandbox.resolve("sources/disk.qcow2"));
            Vsm.Result r =
                    vsm.run("import", "san", "100", qcow2.toString(), "-q").ok();
            assertThat(r.out()).isEqualTo("successfully imported 'san:vm-100-disk-0'\n");
            assertThat(vg.lvSize("vm-100-disk-0"))
                    .as("10 MiB rounded up to 4 MiB extents")
                    .contains(12 * MIB);
            assertThat(vg.tags("vm-100-disk-0")).containsExactly("pve-vm-100");
            byte[] written = Arrays.copyOf(Files.readAllBytes(device.path()), (int) (10 * MIB));
            assertThat(written).as("every byte of the image, zeros included").isEqualTo(Files.readAllBytes(source));
        }
    }

    @Test
    void anLvNamedByItsHostPathIsReadAsItsOwnRawDataNotAsTheQcow2ItsGuestWrote() throws IOException {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vsm.run("alloc", "san", "100", "vm-100-disk-0", "4M").ok();
        try (LoopDevice device = LoopDevice.create(4 * MIB)) {
            // the guest writes a self-contained qcow2 header over its raw disk
            HostTools.mustRun(
                    Map.of(),
                    "qemu-img",
                    "create",
                    "-q",
                    "-f",
                    "qcow2",
                    device.path().toString(),
                    "8M");
            nodes.link("vm-100-disk-0", device);
            Path mapper = Path.of("/dev/mapper", vg.name().replace("-", "--") + "-vm--100--disk--0");
            Files.createSymbolicLink(mapper, device.path());
            try {
                for (String path : List.of(lv("vm-100-disk-0"), mapper.toString())) {
                    Vsm.Result dry = vsm.run("import", "san", "101", path, "--yes", "--dry-run")
                            .ok();
                    assertThat(dry.out())
                            .as("import of %s", path)
                            .contains("--size 4096k --name vm-101-disk-0")
                            .contains("+ qemu-img convert -p -n -f raw -O raw -S 0 " + lv("vm-100-disk-0") + " "
                                    + lv("vm-101-disk-0"));
                }
            } finally {
                Files.deleteIfExists(mapper);
            }
        }
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
    }

    @Test
    void aFailedConvertFreesTheLv() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        Vsm.Result r = vsm.run("import", "san", "100", source.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().strip().lines())
                .singleElement()
                .asString()
                .startsWith("unable to convert '" + source + "' to '" + lv("vm-100-disk-0") + "'")
                .endsWith("(removed 'san:vm-100-disk-0' again)");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void qcow2VolumesAreRefusedBeforeAnythingIsAllocated() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vsm.run("import", "san", "100", source.toString(), "--format", "qcow2")
                .badInput("snapshot-as-volume-chain option need to be enabled to use qcow2 format");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void streamsInAndOut() throws IOException {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        byte[] data = Files.readAllBytes(source);
        Path stream = sandbox.resolve("in.stream");
        Files.write(
                stream,
                ByteBuffer.allocate(8)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(data.length)
                        .array());
        Files.write(stream, data, java.nio.file.StandardOpenOption.APPEND);
        assertThat(vsm.run("import-stream", "san:vm-100-disk-0", "raw+size", stream.toString(), "--dry-run")
                        .ok()
                        .lines())
                .startsWith("+ /sbin/lvcreate -aly -Wy --yes --size 10240k --name vm-100-disk-0 --setautoactivation n "
                        + "--addtag pve-vm-100 " + vg.name());
        try (LoopDevice device = LoopDevice.create(12 * MIB)) {
            device.fillRandom(9);
            nodes.link("vm-100-disk-0", device);
            vsm.run("import-stream", "san:vm-100-disk-0", "raw+size", stream.toString(), "-q")
                    .ok();
            assertThat(Arrays.copyOf(Files.readAllBytes(device.path()), data.length))
                    .isEqualTo(data);

            Path out = sandbox.resolve("out.stream");
            vsm.run("export", "san:vm-100-disk-0", "raw+size", out.toString(), "-q")
                    .ok();
            byte[] exported = Files.readAllBytes(out);
            assertThat(ByteBuffer.wrap(exported, 0, 8)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .getLong())
                    .as("the LV's size")
                    .isEqualTo(12 * MIB);
            assertThat(Arrays.copyOfRange(exported, 8, exported.length)).isEqualTo(Files.readAllBytes(device.path()));
        }
        vsm.run("import-stream", "san:vm-101-disk-0", "qcow2+size", stream.toString(), "--with-snapshots", "1")
                .badInput(
                        "cannot import format qcow2+size into a volume of format raw on storage 'san' (type lvm, which imports none)");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
    }
}
