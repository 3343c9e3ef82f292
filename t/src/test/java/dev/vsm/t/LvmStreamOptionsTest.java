package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.StandInNodes;
import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * pvesm's export/import options on lvm and lvmthin storages (real lvm2 on a loop-device VG,
 * activation off, through the real cli/vsm): as in pve both stream {@code raw+size} without
 * snapshots only and refuse {@code --snapshot} on export, {@code --base}, {@code --with-snapshots 1}
 * and {@code --delete-snapshot}, creating no LV; {@code --allow-rename} and a {@code unix://}
 * source work. Where data is written, a symlink {@code /dev/<vg>/<lv>} to a scratch loop device
 * stands in for the LV's node (these machines cannot activate LVs).
 */
@RootTest
class LvmStreamOptionsTest {
    private static final long MIB = 1 << 20;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @RegisterExtension
    final StandInNodes nodes = new StandInNodes(vg);

    @TempDir
    Path sandbox;

    @Test
    void lvmAllowRenameImportsUnderTheNextFreeNameFromAUnixSocket() throws Exception {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vg.createLv("vm-100-disk-0", 8);
        try (LoopDevice from = LoopDevice.create(8 * MIB);
                LoopDevice to = LoopDevice.create(8 * MIB)) {
            from.fillRandom(3);
            nodes.link("vm-100-disk-0", from);
            nodes.link("vm-100-disk-1", to);
            Path stream = sandbox.resolve("lv.stream");
            vsm.run("export", "san:vm-100-disk-0", "raw+size", stream.toString(), "-with-snapshots", "0", "-q")
                    .ok();

            Path socket = sandbox.resolve("lv.sock");
            Vsm.Started importer = vsm.start(
                    "import-stream",
                    "san:vm-100-disk-0",
                    "raw+size",
                    "unix://" + socket,
                    "-with-snapshots",
                    "0",
                    "-snapshot",
                    "ignored",
                    "-allow-rename",
                    "1",
                    "-q");
            waitForSocket(importer, socket);
            StreamOptionsTest.sendTo(socket, stream);
            Vsm.Result r = importer.finish();
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.lines()).containsExactly("ready", "successfully imported 'san:vm-100-disk-1'");
            assertThat(r.err())
                    .contains(
                            "volume 'vm-100-disk-0' already exists on storage 'san' - importing with a different name");
            assertThat(vg.lvNames()).containsExactlyInAnyOrder("vm-100-disk-0", "vm-100-disk-1");
            assertThat(Files.readAllBytes(to.path())).isEqualTo(Files.readAllBytes(from.path()));

            // without --allow-rename a taken name is refused and no LV is made
            vsm.run("import-stream", "san:vm-100-disk-0", "raw+size", stream.toString())
                    .badInput("already exists");
            assertThat(vg.lvNames()).containsExactlyInAnyOrder("vm-100-disk-0", "vm-100-disk-1");
        }
    }

    private static void waitForSocket(Vsm.Started started, Path socket) throws Exception {
        for (int i = 0;
                i < 600
                        && !(Files.exists(socket)
                                && Files.readString(started.outFile()).equals("ready\n"));
                i++) {
            assertThat(started.process().isAlive())
                    .as("vsm ended early: %s", Files.readString(started.errFile()))
                    .isTrue();
            Thread.sleep(100);
        }
        assertThat(Files.readString(started.outFile())).isEqualTo("ready\n");
    }

    @Test
    void lvmRefusesWhatPveRefusesAndMakesNoLv() throws IOException {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vg.createLv("vm-100-disk-0", 4);
        Path stream = sandbox.resolve("in.stream");
        Files.write(stream, new byte[] {0, 0, 16, 0, 0, 0, 0, 0}); // 1 MiB announced
        Path out = sandbox.resolve("out.stream");
        String offered = "(this volume: raw+size with --with-snapshots 0)";
        refusals(vsm, "san:vm-100-disk-0", "san:vm-101-disk-0", "lvm", stream, out, offered);
        // lvm has no base volumes: pve's lvm parses no base- name
        vsm.run("import-stream", "san:base-101-disk-0", "raw+size", stream.toString())
                .badInput("unable to parse lvm volume name 'base-101-disk-0'");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
    }

    @Test
    void lvmthinRefusesWhatPveRefusesSnapshotsIncludedAndMakesNoLv() throws IOException {
        ThinSandbox.writeLayout(vg);
        Vsm vsm = ThinSandbox.vsm(sandbox, vg);
        List<String> lvs = vg.lvNames();
        Path stream = sandbox.resolve("in.stream");
        Files.write(stream, new byte[] {0, 0, 16, 0, 0, 0, 0, 0});
        Path out = sandbox.resolve("out.stream");
        // vm-100-disk-0 has a thin snapshot s1: pve's lvmthin exports the current state only all the same
        refusals(
                vsm,
                "thin:vm-100-disk-0",
                "thin:vm-103-disk-0",
                "lvmthin",
                stream,
                out,
                "(this volume: raw+size with --with-snapshots 0)");
        assertThat(vg.lvNames()).containsExactlyInAnyOrderElementsOf(lvs);
    }

    private static void refusals(
            Vsm vsm, String existing, String fresh, String type, Path stream, Path out, String offered) {
        String storage = existing.substring(0, existing.indexOf(':'));
        vsm.run("export", existing, "raw+size", out.toString(), "-snapshot", "s1")
                .badInput("cannot export a snapshot (--snapshot) of '" + existing + "': storage type " + type
                        + " exports a volume's current state only " + offered);
        vsm.run("export", existing, "raw+size", out.toString(), "-base", "s1")
                .badInput("cannot export an incremental stream (--base) of '" + existing + "': storage type " + type
                        + " exports whole volumes only " + offered);
        vsm.run("export", existing, "raw+size", out.toString(), "-with-snapshots", "1")
                .badInput("volume export format raw+size needs --with-snapshots 0");
        vsm.run("export", existing, "raw+size", out.toString(), "-snapshot-list", "s1")
                .badInput("volume export format raw+size needs --with-snapshots 0");
        vsm.run("export", existing, "qcow2+size", out.toString(), "-with-snapshots", "1")
                .badInput("volume export format qcow2+size not available for '" + existing + "' (storage type " + type
                        + ", which exports none)");
        assertThat(out).doesNotExist();

        vsm.run("import-stream", fresh, "raw+size", stream.toString(), "-with-snapshots", "1")
                .badInput("format raw+size cannot be imported with snapshots");
        vsm.run("import-stream", fresh, "qcow2+size", stream.toString(), "-with-snapshots", "1")
                .badInput("cannot import format qcow2+size into a volume of format raw on storage '" + storage
                        + "' (type " + type + ", which imports none)");
        vsm.run("import-stream", fresh, "raw+size", stream.toString(), "-base", "s1")
                .badInput("cannot import an incremental stream (--base) into storage '" + storage + "': type " + type
                        + " imports whole volumes only");
        vsm.run("import-stream", fresh, "raw+size", stream.toString(), "-delete-snapshot", "s1")
                .badInput("--delete-snapshot needs a stream with snapshots (--with-snapshots 1)");
        vsm.run("import-stream", fresh, "raw+size", "tcp://127.0.0.1", "-base", "s1")
                .badInput("cannot import an incremental stream (--base)");
    }

    @Test
    void lvmthinVolumeExportsAsRawSize() throws IOException {
        ThinSandbox.writeLayout(vg);
        Vsm vsm = ThinSandbox.vsm(sandbox, vg);
        try (LoopDevice device = LoopDevice.create(8 * MIB)) {
            device.fillRandom(6);
            nodes.link("vm-101-disk-0", device);
            Path out = sandbox.resolve("out.stream");
            vsm.run("export", "thin:vm-101-disk-0", "raw+size", out.toString(), "--with-snapshots=0", "-q")
                    .ok();
            byte[] exported = Files.readAllBytes(out);
            assertThat(ByteBuffer.wrap(exported, 0, 8)
                            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                            .getLong())
                    .isEqualTo(8 * MIB);
            assertThat(Arrays.copyOfRange(exported, 8, exported.length)).isEqualTo(Files.readAllBytes(device.path()));
        }
    }
}
