package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm export} and {@code vsm import-stream} with pvesm's options, through the real
 * cli/vsm between two dir storages: snapshots in qcow2+size, {@code --allow-rename}, the
 * {@code tcp://} and {@code unix://} sources with real sockets, iso/vztmpl/snippets/import files
 * as raw+size, abbreviated options, and every refusal (exit 2, nothing created).
 */
class StreamOptionsTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path a;
    private Path b;
    private Path raw;

    @BeforeEach
    void setUp() throws IOException {
        a = sandbox.resolve("a");
        b = sandbox.resolve("b");
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  aa:
                    type: dir
                    path: %s
                  bb:
                    type: dir
                    path: %s
                """.formatted(a, b));
        raw = Images.raw(Files.createDirectories(sandbox.resolve("sources")), "disk.raw", 8, 5);
        vsm.run("import", "aa", "100", raw.toString(), "-q").ok(); // aa:100/vm-100-disk-0.raw
        vsm.run("import", "aa", "100", raw.toString(), "--format", "qcow2", "-q")
                .ok(); // aa:100/vm-100-disk-1.qcow2
    }

    @AfterEach
    void release() {
        vsm.releaseImmutable(); // the bases: the temporary directory goes when the test ends
    }

    private List<String> snapshots(Path qcow2) {
        return QemuImg.info(qcow2).path("snapshots").findValuesAsText("name");
    }

    @Test
    void qcow2SnapshotsTravelAndTheImportedOneIsDeletedUnderTheNameActuallyUsed() throws Exception {
        vsm.run("snapshot", "aa:100/vm-100-disk-1.qcow2", "s1").ok();
        vsm.run("snapshot", "aa:100/vm-100-disk-1.qcow2", "migration").ok();
        vsm.run("import", "bb", "100", raw.toString(), "--format", "qcow2", "-q")
                .ok(); // the name the import asks for is taken
        byte[] taken = Files.readAllBytes(b.resolve("images/100/vm-100-disk-0.qcow2"));

        // the command lines pve's storage_migrate runs, pvesm's "import" and one-dash options and all
        Vsm.Result r = vsm.shell(
                "vsm export aa:100/vm-100-disk-1.qcow2 qcow2+size - -with-snapshots 1 -snapshot-list s1,migration -q"
                        + " | vsm import bb:100/vm-100-disk-0.qcow2 qcow2+size - -with-snapshots 1 -snapshot migration"
                        + " -delete-snapshot migration -allow-rename 1 -q");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .as("stdout names the volume made")
                .isEqualTo("successfully imported 'bb:100/vm-100-disk-1.qcow2'\n");
        assertThat(r.err())
                .isEqualTo(
                        "volume 'vm-100-disk-0.qcow2' already exists on storage 'bb' - importing with a different name\n");
        Path copy = b.resolve("images/100/vm-100-disk-1.qcow2");
        assertThat(snapshots(copy)).containsExactly("s1");
        assertThat(snapshots(a.resolve("images/100/vm-100-disk-1.qcow2"))).containsExactly("s1", "migration");
        assertThat(Images.same(raw, "raw", copy, "qcow2")).isTrue();
        assertThat(Files.readAllBytes(b.resolve("images/100/vm-100-disk-0.qcow2")))
                .as("the taken name untouched")
                .isEqualTo(taken);

        // without --allow-rename the taken name is refused, and nothing is made
        Path stream = sandbox.resolve("q.stream");
        vsm.run("export", "aa:100/vm-100-disk-1.qcow2", "qcow2+size", stream.toString(), "--with-snapshots", "-q")
                .ok();
        Map<String, String> before = Tree.snapshot(b);
        Vsm.Result refused = vsm.run(
                "import-stream", "bb:100/vm-100-disk-0.qcow2", "qcow2+size", stream.toString(), "-with-snapshots", "1");
        assertThat(refused.exit()).as(refused.err()).isEqualTo(2);
        assertThat(refused.err()).contains("vm-100-disk-0.qcow2").contains("already exists");
        // a snapshot the stream does not carry cannot be deleted: refused before the volume counts as one
        vsm.run(
                        "import-stream",
                        "bb:100/vm-100-disk-2.qcow2",
                        "qcow2+size",
                        stream.toString(),
                        "-with-snapshots",
                        "1",
                        "-delete-snapshot",
                        "nosuch")
                .badInput("import: the stream carries no snapshot 'nosuch' to delete");
        assertThat(Tree.snapshot(b)).isEqualTo(before);
    }

    /**
     * A template's disk migrates as a base: imported as the guest's volume, then made a base as
     * {@code create-base} makes one (pve's lvmthin import; pve's dir writes the base name directly,
     * left writable). A taken base name is refused before anything is read, or with
     * {@code -allow-rename 1} the next free name becomes the base.
     */
    @Test
    void aBaseVolumeMigratesAsABase() throws Exception {
        vsm.run("create-base", "aa:100/vm-100-disk-0.raw").ok();
        Path source = a.resolve("images/100/base-100-disk-0.raw");
        String migrate = "vsm export aa:100/base-100-disk-0.raw raw+size - -q"
                + " | vsm import bb:100/base-100-disk-0.raw raw+size - -q";
        Vsm.Result r = vsm.shell(migrate);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("successfully imported 'bb:100/base-100-disk-0.raw'\n");
        Path copy = b.resolve("images/100/base-100-disk-0.raw");
        assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(source));
        assertThat(Images.files(b.resolve("images/100"))).containsExactly("base-100-disk-0.raw");
        assertThat(Files.getPosixFilePermissions(copy))
                .as("read-only, as create-base leaves a base")
                .isEqualTo(Files.getPosixFilePermissions(source));

        Path stream = sandbox.resolve("base.stream");
        vsm.run("export", "aa:100/base-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        vsm.run("import", "bb:100/base-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .badInput("volume 'base-100-disk-0.raw' already exists on storage 'bb' (--allow-rename 1 imports it"
                        + " under the next free name)");
        assertThat(Images.files(b.resolve("images/100"))).containsExactly("base-100-disk-0.raw");

        Vsm.Result renamed = vsm.run(
                        "import",
                        "bb:100/base-100-disk-0.raw",
                        "raw+size",
                        stream.toString(),
                        "-allow-rename",
                        "1",
                        "-q")
                .ok();
        assertThat(renamed.out()).isEqualTo("successfully imported 'bb:100/base-100-disk-1.raw'\n");
        assertThat(Images.files(b.resolve("images/100"))).containsExactly("base-100-disk-0.raw", "base-100-disk-1.raw");
        assertThat(vsm.run("import", "bb:100/base-100-disk-5.raw", "raw+size", stream.toString(), "--dry-run")
                        .ok()
                        .out())
                .contains("+ make 'bb:100/vm-100-disk-5.raw' a base volume (vsm create-base)");
        assertThat(Images.files(b.resolve("images/100")))
                .as("a dry run makes nothing")
                .containsExactly("base-100-disk-0.raw", "base-100-disk-1.raw");
        assertThat(vsm.run("clone", "bb:100/base-100-disk-1.raw", "101").ok().out())
                .endsWith("successfully created linked clone 'bb:100/base-100-disk-1.raw/101/vm-101-disk-0.qcow2'\n");
    }

    @Test
    void vmdkWithSnapshotsCopiesTheFileAsItIsAsPveDoes() throws Exception {
        vsm.run("import", "aa", "101", raw.toString(), "--format", "vmdk", "-q").ok();
        Path stream = sandbox.resolve("v.stream");
        vsm.run("export", "aa:101/vm-101-disk-0.vmdk", "vmdk+size", stream.toString())
                .badInput("volume export format vmdk+size needs --with-snapshots 1");
        Vsm.Result r = vsm.shell("vsm export aa:101/vm-101-disk-0.vmdk vmdk+size - -with-snapshots 1 -q"
                + " | vsm import-stream bb:101/vm-101-disk-0.vmdk vmdk+size - -with-snapshots 1 -q");
        assertThat(r.exit()).as(r.err()).isZero();
        Path copy = b.resolve("images/101/vm-101-disk-0.vmdk");
        assertThat(Files.mismatch(a.resolve("images/101/vm-101-disk-0.vmdk"), copy))
                .isEqualTo(-1L);
        assertThat(Images.same(raw, "raw", copy, "vmdk")).isTrue();
        vsm.run("import-stream", "bb:101/vm-101-disk-1.qcow2", "vmdk+size", stream.toString(), "-with-snapshots", "1")
                .badInput(
                        "cannot import format vmdk+size into a volume of format qcow2 on storage 'bb' (type dir, which takes qcow2+size)");
    }

    @Test
    void tcpSourceListensPrintsAddressAndPortAndTakesOneConnection() throws Exception {
        Path stream = sandbox.resolve("r.stream");
        vsm.run("export", "aa:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        Vsm.Started importer =
                vsm.start("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", "tcp://127.0.0.1", "-q");
        List<String> told = firstLines(importer, 2);
        assertThat(told.get(0)).isEqualTo("127.0.0.1");
        int port = Integer.parseInt(told.get(1));
        assertThat(port).isBetween(60000, 60050);
        try (Socket s = new Socket("127.0.0.1", port);
                OutputStream out = s.getOutputStream()) {
            Files.copy(stream, out);
        }
        Vsm.Result r = importer.finish();
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines())
                .containsExactly("127.0.0.1", String.valueOf(port), "successfully imported 'bb:100/vm-100-disk-0.raw'");
        assertThat(Files.mismatch(raw, b.resolve("images/100/vm-100-disk-0.raw")))
                .isEqualTo(-1L);

        // a network: this host's one address in it (CIDR, as pve's insecure migration passes it)
        importer = vsm.start("import-stream", "bb:101/vm-101-disk-0.raw", "raw+size", "tcp://127.0.0.0/8", "-q");
        told = firstLines(importer, 2);
        assertThat(told.get(0)).isEqualTo("127.0.0.1");
        try (Socket s = new Socket("127.0.0.1", Integer.parseInt(told.get(1)));
                OutputStream out = s.getOutputStream()) {
            Files.copy(stream, out);
        }
        importer.finish().ok();
        assertThat(Files.mismatch(raw, b.resolve("images/101/vm-101-disk-0.raw")))
                .isEqualTo(-1L);
    }

    @Test
    void unixSourcePrintsReadyTakesOneConnectionAndRemovesItsSocket() throws Exception {
        Path stream = sandbox.resolve("q.stream");
        vsm.run("snapshot", "aa:100/vm-100-disk-1.qcow2", "s1").ok();
        vsm.run("export", "aa:100/vm-100-disk-1.qcow2", "qcow2+size", stream.toString(), "-with-snapshots", "1", "-q")
                .ok();
        Path socket = sandbox.resolve("import.sock");
        Vsm.Started importer = vsm.start(
                "import-stream",
                "bb:100/vm-100-disk-0.qcow2",
                "qcow2+size",
                "unix://" + socket,
                "-with-snapshots",
                "1",
                "-q");
        assertThat(firstLines(importer, 1)).containsExactly("ready");
        sendTo(socket, stream);
        Vsm.Result r = importer.finish();
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsExactly("ready", "successfully imported 'bb:100/vm-100-disk-0.qcow2'");
        assertThat(socket).doesNotExist();
        assertThat(Files.mismatch(
                        a.resolve("images/100/vm-100-disk-1.qcow2"), b.resolve("images/100/vm-100-disk-0.qcow2")))
                .isEqualTo(-1L);
    }

    @SlowTest
    @Test
    void aSocketNobodyConnectsToTimesOutAfterThirtySecondsAndLeavesNothing() throws Exception {
        Map<String, String> before = Tree.snapshot(b);
        Path socket = sandbox.resolve("idle.sock");
        Vsm.Result r = vsm.start("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", "unix://" + socket)
                .finish(90);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).isEqualTo("ready\n");
        assertThat(r.err().strip()).isEqualTo("timed out waiting for client");
        assertThat(socket).doesNotExist();
        assertThat(Tree.snapshot(b)).isEqualTo(before);
    }

    /** Connects to the unix socket {@code socket} and writes {@code stream}'s bytes to it. */
    static void sendTo(Path socket, Path stream) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer data = ByteBuffer.wrap(Files.readAllBytes(stream));
            while (data.hasRemaining()) {
                ch.write(data);
            }
        }
    }

    /** The first {@code n} lines the started vsm printed, once it has printed them (it flushes them before it waits). */
    private static List<String> firstLines(Vsm.Started started, int n) throws Exception {
        for (int i = 0; i < 600; i++) {
            String out = Files.readString(started.outFile());
            List<String> lines = out.lines().toList();
            if (out.endsWith("\n") && lines.size() >= n) {
                return lines.subList(0, n);
            }
            assertThat(started.process().isAlive())
                    .as("vsm ended early: %s", Files.readString(started.errFile()))
                    .isTrue();
            Thread.sleep(100);
        }
        started.process().destroyForcibly();
        throw new AssertionError("vsm printed no address in 60 s");
    }

    @Test
    void isoTemplateSnippetAndImportFilesTravelAsRawSizeByteForByte() throws Exception {
        Files.createDirectories(a.resolve("template/iso"));
        Files.createDirectories(a.resolve("template/cache"));
        Files.createDirectories(a.resolve("snippets"));
        Files.createDirectories(a.resolve("import"));
        Files.write(a.resolve("template/iso/install.iso"), Files.readAllBytes(raw));
        Files.write(
                a.resolve("template/cache/debian-12-standard_12.7-1_amd64.tar.zst"),
                new byte[] {40, -75, 47, -3, 1, 2, 3});
        Files.writeString(a.resolve("snippets/user.yaml"), "#cloud-config\n");
        Images.convert(raw, "qcow2", a.resolve("import/disk.qcow2"));
        for (String v : List.of(
                "iso/install.iso",
                "vztmpl/debian-12-standard_12.7-1_amd64.tar.zst",
                "snippets/user.yaml",
                "import/disk.qcow2")) {
            Vsm.Result r =
                    vsm.shell("vsm export aa:" + v + " raw+size - -q | vsm import-stream bb:" + v + " raw+size - -q");
            assertThat(r.exit()).as(v + ": " + r.err()).isZero();
            assertThat(r.out()).isEqualTo("successfully imported 'bb:" + v + "'\n");
        }
        for (String f : List.of(
                "template/iso/install.iso",
                "template/cache/debian-12-standard_12.7-1_amd64.tar.zst",
                "snippets/user.yaml",
                "import/disk.qcow2")) {
            assertThat(Files.mismatch(a.resolve(f), b.resolve(f))).as(f).isEqualTo(-1L);
        }
        Path stream = sandbox.resolve("iso.stream");
        vsm.run("export", "aa:iso/install.iso", "raw+size", stream.toString(), "-q")
                .ok();
        assertThat(Files.size(stream)).isEqualTo(8 + Files.size(raw));

        // never over a file that exists, --allow-rename or not (pve renames images only)
        Map<String, String> before = Tree.snapshot(b);
        vsm.run("import-stream", "bb:iso/install.iso", "raw+size", stream.toString(), "-allow-rename", "1")
                .badInput("file '" + b.resolve("template/iso/install.iso") + "' already exists");
        vsm.run("import-stream", "bb:iso/other.iso", "qcow2+size", stream.toString(), "-with-snapshots", "1")
                .badInput(
                        "cannot import format qcow2+size with snapshots into iso file 'bb:iso/other.iso' on storage 'bb' "
                                + "(type dir takes raw+size without snapshots)");
        vsm.run("import-stream", "bb:iso/other.iso", "raw+size", stream.toString(), "-delete-snapshot", "x")
                .badInput("--delete-snapshot needs a stream with snapshots");
        assertThat(Tree.snapshot(b)).isEqualTo(before);
        vsm.run(
                        "export",
                        "aa:iso/install.iso",
                        "raw+size",
                        sandbox.resolve("x.stream").toString(),
                        "-with-snapshots",
                        "1")
                .badInput("volume export format raw+size needs --with-snapshots 0");
        assertThat(sandbox.resolve("x.stream")).doesNotExist();
    }

    @Test
    void everyRefusalExitsTwoWithOneLineAndCreatesNothing() throws IOException {
        Path stream = sandbox.resolve("r.stream");
        vsm.run("export", "aa:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        Path out = sandbox.resolve("out.stream");
        Map<String, String> beforeA = Tree.snapshot(a);
        Map<String, String> beforeB = Tree.snapshot(b);
        String offered = "(this volume: raw+size with --with-snapshots 0, qcow2+size with --with-snapshots 1)";
        String qcow2 = "aa:100/vm-100-disk-1.qcow2";

        vsm.run("export", qcow2, "raw+size", out.toString(), "-snapshot", "s1")
                .badInput("cannot export a snapshot (--snapshot) of '" + qcow2
                        + "': storage type dir exports a volume's current " + "state only " + offered);
        vsm.run("export", qcow2, "raw+size", out.toString(), "--base", "s1")
                .badInput("cannot export an incremental stream (--base) of '" + qcow2
                        + "': storage type dir exports whole volumes " + "only " + offered);
        vsm.run("export", qcow2, "qcow2+size", out.toString(), "-snapshot-list", "nosuch")
                .badInput("snapshot 'nosuch' (--snapshot-list) does not exist on '" + qcow2 + "' (it has: none)");
        vsm.run("export", qcow2, "qcow2+size", out.toString())
                .badInput("volume export format qcow2+size needs --with-snapshots 1");
        vsm.run("export", "aa:100/vm-100-disk-0.raw", "qcow2+size", out.toString(), "-with-snapshots", "1")
                .badInput(
                        "volume export format qcow2+size not available for 'aa:100/vm-100-disk-0.raw' (storage type dir, "
                                + "which exports none)");
        vsm.run("export", qcow2, "tar+size", out.toString())
                .badInput(
                        "volume export format tar+size not available for '" + qcow2 + "' (storage type dir: raw+size)");
        vsm.run("export", qcow2, "tar.size", out.toString()).badInput("unknown stream format 'tar.size'");
        vsm.run("export", qcow2, "raw+size", out.toString(), "-with-snapshots", "maybe")
                .badInput("with-snapshots: 'maybe' is not 0 or 1");
        vsm.run("export", qcow2, "raw+size", out.toString(), "-snapshot", "a.b")
                .badInput("snapshot: 'a.b' is not a snapshot name (1 to 40 of a-z, 0-9, _ and -)");
        assertThat(out).doesNotExist();

        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-base", "s1")
                .badInput(
                        "cannot import an incremental stream (--base) into storage 'bb': type dir imports whole volumes only");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-delete-snapshot", "s1")
                .badInput("--delete-snapshot needs a stream with snapshots (--with-snapshots 1)");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-with-snapshots", "1")
                .badInput("format raw+size cannot be imported with snapshots");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "qcow2+size", stream.toString(), "-with-snapshots", "1")
                .badInput(
                        "cannot import format qcow2+size into a volume of format raw on storage 'bb' (type dir, which imports none)");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-allow-rename", "perhaps")
                .badInput("allow-rename: 'perhaps' is not 0 or 1");
        vsm.run(
                        "import-stream",
                        "bb:100/vm-100-disk-0.raw",
                        "raw+size",
                        stream.toString(),
                        "-delete-snapshot",
                        "x".repeat(81))
                .badInput("delete-snapshot: '" + "x".repeat(81)
                        + "' is not a snapshot name (1 to 80 of a-z, 0-9, _ and -)");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", "tcp://127.0.0.1", "--bwlimit", "100")
                .badInput("--bwlimit reads a file or standard input; limit the sender instead (vsm export --bwlimit)");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", "tcp://2001:db8::/32")
                .badInput("Unable to get any local IP address in network '2001:db8::/32'");
        vsm.run("import-stream", "bb:100/vm-100-disk-0.raw", "raw+size", "tcp://203.0.113.7")
                .badInput("tcp://203.0.113.7: not an address of this host");
        // a refusal comes before the socket is opened: nobody is told where to connect
        assertThat(vsm.run(
                                "import-stream",
                                "bb:100/vm-100-disk-0.raw",
                                "raw+size",
                                "unix://" + sandbox.resolve("s.sock"),
                                "-base",
                                "x")
                        .badInput("cannot import an incremental stream")
                        .out())
                .isEmpty();
        assertThat(sandbox.resolve("s.sock")).doesNotExist();

        assertThat(Tree.snapshot(a)).isEqualTo(beforeA);
        assertThat(Tree.snapshot(b)).isEqualTo(beforeB);
    }

    /**
     * pvesm parses with Getopt::Long's defaults (CLIHandler, JSONSchema's get_options): a unique
     * abbreviation of a long option is that option, in any case; pvesm export's {@code -snap} is
     * ambiguous between {@code snapshot} and {@code snapshot-list}, import's is {@code snapshot}.
     */
    @Test
    void optionsMayBeAbbreviatedAsPvesmTakesThem() throws Exception {
        vsm.run("snapshot", "aa:100/vm-100-disk-1.qcow2", "s1").ok();
        Vsm.Result r = vsm.shell(
                "vsm export aa:100/vm-100-disk-1.qcow2 qcow2+size - -with 1 -snapshot-l s1 -q"
                        + " | vsm import-stream bb:100/vm-100-disk-0.qcow2 qcow2+size - --WITH-SNAPSHOTS=1 -snap s1 -del s1 -allow 1 -q");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("successfully imported 'bb:100/vm-100-disk-0.qcow2'\n");
        assertThat(snapshots(b.resolve("images/100/vm-100-disk-0.qcow2"))).isEmpty();

        Path out = sandbox.resolve("out.stream");
        vsm.run("export", "aa:100/vm-100-disk-1.qcow2", "qcow2+size", out.toString(), "-snap", "s1")
                .badInput("Option snap is ambiguous (snapshot, snapshot-list)");
        assertThat(out).doesNotExist();
        vsm.run("add", "dir", "cc", "-pa", sandbox.resolve("c").toString(), "-prea", "off")
                .ok();
        assertThat(Files.readString(vsm.config()))
                .contains("path: " + sandbox.resolve("c"))
                .contains("preallocation: 'off'");
        Map<String, String> config = Tree.snapshot(vsm.config().getParent());
        vsm.run("add", "dir", "dd", "-pr", "off", "-path", sandbox.resolve("d").toString())
                .badInput("Option pr is ambiguous (preallocation, prune-backups)");
        assertThat(Tree.snapshot(vsm.config().getParent())).isEqualTo(config);
    }
}
