package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.StandInNodes;
import dev.vsm.t.support.ThinSandbox;
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
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Import, import-stream and export with an lvmthin storage, through the real cli/vsm, on a loop
 * VG whose thin pool and volumes are written into its metadata ({@link ThinSandbox}). lvm2 cannot
 * create thin volumes here (no device-mapper), so the import's argv is checked with
 * {@code --dry-run}; listing and cleanup of an import's leftover run against the real lvs, and
 * the export reads a stand-in node {@code /dev/<vg>/<lv>} pointing at a loop device.
 */
@RootTest
class ThinImportTest {
    private static final long MIB = 1 << 20;
    private static final String TAG = "vsm-importing\\.[0-9a-f]{16}\\.[\\w-]+";

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @RegisterExtension
    final StandInNodes nodes = new StandInNodes(vg);

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path source;

    @BeforeEach
    void setUp() throws IOException {
        ThinSandbox.writeLayout(vg);
        vsm = ThinSandbox.vsm(sandbox, vg);
        source = Images.raw(Files.createDirectories(sandbox.resolve("sources")), "disk.raw", 10, 3);
    }

    private String dev(String lv) {
        return "/dev/" + vg.name() + "/" + lv;
    }

    @Test
    void aThinVolumeReadsZerosSoZeroRunsAreSkippedAndTheTagGoesOnlyAfterTheConvert() {
        Path qcow2 = Images.convert(source, "qcow2", sandbox.resolve("sources/disk.qcow2"));
        java.util.List<String> lines = vsm.run("import", "thin", "103", qcow2.toString(), "--dry-run")
                .ok()
                .lines();
        assertThat(lines.get(0))
                .as("the storage's activation")
                .isEqualTo("+ /sbin/lvchange -ay -K " + vg.name() + "/data");
        java.util.List<String> dry = lines.subList(1, lines.size());
        assertThat(dry).hasSize(6);
        assertThat(dry.get(0))
                .as("sized for the raw volume: the image's virtual size")
                .matches(Pattern.quote("+ /sbin/lvcreate -aly -V 10240k --name vm-103-disk-0 --thinpool " + vg.name()
                                + "/data --addtag ")
                        + TAG);
        String tag = dry.get(0).replaceFirst(".* --addtag ", "");
        assertThat(dry.subList(1, 6))
                .containsExactly(
                        "+ /sbin/lvchange --setautoactivation n " + vg.name() + "/vm-103-disk-0",
                        "+ /sbin/lvchange -ay -K " + vg.name() + "/vm-103-disk-0",
                        "+ qemu-img convert -p -n --target-is-zero -f qcow2 -O raw -S 64k " + qcow2 + " "
                                + dev("vm-103-disk-0"),
                        "+ /sbin/lvchange --deltag " + tag + " " + vg.name() + "/vm-103-disk-0",
                        "would import 'thin:vm-103-disk-0'");
        assertThat(vg.lvNames()).doesNotContain("vm-103-disk-0");
    }

    @Test
    void theOverprovisioningGuardRefusesAnImportBeforeAnythingIsMade() {
        Vsm guarded = ThinSandbox.vsm(sandbox, vg, "max-overprovision: 1");
        Vsm.Result r = guarded.run("import", "thin", "103", source.toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.err().strip().lines()).singleElement().asString().contains("overprovision");
        assertThat(vg.lvNames()).doesNotContain("vm-103-disk-0");
    }

    @Test
    void aVolumeLeftByAKilledImportIsNotListedAndCleanupRemovesIt() {
        vg.lvm("lvchange", "--addtag", "vsm-importing.0123456789abcdef.node1", vg.name() + "/vm-101-disk-0");
        Vsm node1 = vsm.env("VSM_NODE", "node1");
        assertThat(node1.run("list", "thin").ok().lines())
                .noneMatch(l -> l.contains("vm-101-disk-0"))
                .hasSize(3);
        assertThat(node1.run("cleanup", "thin", "--dry-run").ok().lines())
                .contains("+ /sbin/lvremove -f " + vg.name() + "/vm-101-disk-0 --select lv_uuid="
                        + vg.uuid("vm-101-disk-0"));
        assertThat(node1.env("VSM_NODE", "node2")
                        .run("cleanup", "thin", "--dry-run")
                        .ok()
                        .lines())
                .as("another node's import")
                .contains("nothing to clean up on storage 'thin'")
                .noneMatch(l -> l.contains("lvremove"));
    }

    @Test
    void aVolumeNamedByItsHostPathIsReadAsItsOwnRawDataNotAsTheQcow2ItsGuestWrote() throws IOException {
        try (LoopDevice device = LoopDevice.create(8 * MIB)) {
            // the guest writes a self-contained qcow2 header over its raw disk
            HostTools.mustRun(
                    Map.of(),
                    "qemu-img",
                    "create",
                    "-q",
                    "-f",
                    "qcow2",
                    device.path().toString(),
                    "32M");
            nodes.link("vm-101-disk-0", device);
            Path mapper = Path.of("/dev/mapper", vg.name().replace("-", "--") + "-vm--101--disk--0");
            Files.createSymbolicLink(mapper, device.path());
            try {
                for (String path : java.util.List.of(dev("vm-101-disk-0"), mapper.toString())) {
                    String dry = vsm.run("import", "thin", "104", path, "--yes", "--dry-run")
                            .ok()
                            .out();
                    assertThat(dry)
                            .as("import of %s", path)
                            .contains("-V 8192k --name vm-104-disk-0")
                            .contains(" -f raw -O raw -S 64k " + dev("vm-101-disk-0") + " " + dev("vm-104-disk-0"));
                }
            } finally {
                Files.deleteIfExists(mapper);
            }
        }
        assertThat(vg.lvNames()).doesNotContain("vm-104-disk-0");
    }

    @Test
    void streamsInAndOutAsRawSize() throws IOException {
        byte[] data = Files.readAllBytes(source);
        Path stream = sandbox.resolve("in.stream");
        Files.write(
                stream,
                ByteBuffer.allocate(8)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(data.length)
                        .array());
        Files.write(stream, data, java.nio.file.StandardOpenOption.APPEND);
        assertThat(vsm.run("import-stream", "thin:vm-103-disk-0", "raw+size", stream.toString(), "--dry-run")
                        .ok()
                        .lines())
                .contains("+ /sbin/lvcreate -aly -V 10240k --name vm-103-disk-0 --thinpool " + vg.name() + "/data");
        vsm.run("import-stream", "thin:vm-103-disk-0", "qcow2+size", stream.toString(), "--with-snapshots", "1")
                .badInput(
                        "cannot import format qcow2+size into a volume of format raw on storage 'thin' (type lvmthin, which imports none)");

        try (LoopDevice device = LoopDevice.create(8 * MIB)) {
            device.fillRandom(4);
            nodes.link("vm-101-disk-0", device);
            Path out = sandbox.resolve("out.stream");
            vsm.run("export", "thin:vm-101-disk-0", "raw+size", out.toString(), "-q")
                    .ok();
            byte[] exported = Files.readAllBytes(out);
            assertThat(ByteBuffer.wrap(exported, 0, 8)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .getLong())
                    .as("the volume's size")
                    .isEqualTo(8 * MIB);
            assertThat(Arrays.copyOfRange(exported, 8, exported.length)).isEqualTo(Files.readAllBytes(device.path()));
        }
    }
}
