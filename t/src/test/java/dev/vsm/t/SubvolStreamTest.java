package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.TarStream;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tar+size}: a subvol's directory ({@code subvol-<vmid>-disk-N.subvol}, a container's root)
 * exported and imported through the real cli/vsm as pve streams it (pve's
 * {@code volume_export} and {@code volume_import}: the size header 0, then GNU tar with pve's
 * options), and an untrusted stream refused, whole, before tar acts on what it refuses.
 */
class SubvolStreamTest {
    /** pve's {@code @COMMON_TAR_FLAGS}, written out here on purpose: the test's own account of pve. */
    private static final List<String> PVE_TAR_FLAGS = List.of(
            "--one-file-system",
            "-p",
            "--sparse",
            "--numeric-owner",
            "--acls",
            "--xattrs",
            "--xattrs-include=user.*",
            "--xattrs-include=security.capability",
            "--warning=no-file-ignored",
            "--warning=no-xattr-write");

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path a;
    private Path b;
    private Path subvol;

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
        vsm.run("alloc", "aa", "100", "subvol-100-disk-0.subvol", "0", "--format", "subvol")
                .ok();
        subvol = a.resolve("images/100/subvol-100-disk-0.subvol");
        Files.createDirectories(subvol.resolve("etc"));
        Files.writeString(subvol.resolve("etc/hostname"), "ct100\n");
        Files.createLink(subvol.resolve("etc/hostname.hard"), subvol.resolve("etc/hostname"));
        Files.createSymbolicLink(subvol.resolve("etc/localtime"), Path.of("/usr/share/zoneinfo/UTC"));
        Files.createSymbolicLink(subvol.resolve("lib"), Path.of("usr/lib"));
        Files.createDirectories(subvol.resolve("usr/lib"));
        Files.setPosixFilePermissions(subvol.resolve("usr/lib"), PosixFilePermissions.fromString("rwxr-x--x"));
        Files.writeString(subvol.resolve("usr/lib/os-release"), "ID=debian\n");
    }

    private String tree(Path dir) {
        return Images.run("find", dir.toString(), "-mindepth", "1", "-printf", "%P %y %m %U:%G %s %n %l\\n")
                .lines()
                .sorted()
                .reduce("", (x, y) -> x + y + "\n");
    }

    @Test
    void aSubvolMovesThroughAPipeAsItIs() throws IOException {
        Vsm.Result r = vsm.shell("vsm export aa:100/subvol-100-disk-0.subvol tar+size - "
                + "| vsm import-stream bb:101/subvol-101-disk-0.subvol tar+size -");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).last().isEqualTo("successfully imported 'bb:101/subvol-101-disk-0.subvol'");
        Path copy = b.resolve("images/101/subvol-101-disk-0.subvol");
        assertThat(tree(copy)).isEqualTo(tree(subvol)).contains(" /usr/share/zoneinfo/UTC\n");
        assertThat(Images.files(b.resolve("images/101"))).containsExactly("subvol-101-disk-0.subvol");
        assertThat(vsm.run("list", "bb").ok().out()).contains("bb:101/subvol-101-disk-0.subvol subvol");

        // vsm copy of a subvol goes as this stream too
        vsm.run("copy", "aa:100/subvol-100-disk-0.subvol", "bb", "--vmid", "102", "-q")
                .ok();
        assertThat(tree(b.resolve("images/102/subvol-102-disk-0.subvol"))).isEqualTo(tree(subvol));

        // what pve refuses: a subvol with snapshots, another format
        vsm.run(
                        "export",
                        "aa:100/subvol-100-disk-0.subvol",
                        "tar+size",
                        sandbox.resolve("s").toString(),
                        "--with-snapshots",
                        "1")
                .badInput("volume export format tar+size needs --with-snapshots 0");
        vsm.run(
                        "export",
                        "aa:100/subvol-100-disk-0.subvol",
                        "raw+size",
                        sandbox.resolve("s").toString())
                .badInput("volume export format raw+size not available for 'aa:100/subvol-100-disk-0.subvol' "
                        + "(storage type dir: tar+size)");
        assertThat(sandbox.resolve("s")).doesNotExist();
    }

    @Test
    @RootTest
    void ownersDevicesXattrsAndHolesComeAcrossAsPveKeepsThem() throws IOException {
        Path etc = subvol.resolve("etc");
        Files.setAttribute(etc.resolve("hostname"), "unix:uid", 100000);
        Files.setAttribute(etc.resolve("hostname"), "unix:gid", 100000);
        Images.run("chmod", "4755", subvol.resolve("usr/lib").toString());
        Files.getFileAttributeView(etc.resolve("hostname"), UserDefinedFileAttributeView.class)
                .write("foo", ByteBuffer.wrap("bar".getBytes(StandardCharsets.UTF_8)));
        Images.run("mknod", subvol.resolve("null").toString(), "c", "1", "3");
        Images.run("mkfifo", subvol.resolve("fifo").toString());
        Images.run("truncate", "-s", "64M", subvol.resolve("holes").toString());
        Path stream = sandbox.resolve("ct.stream");
        vsm.run("export", "aa:100/subvol-100-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        assertThat(Files.size(stream))
                .as("the 64 MiB hole is not in the stream")
                .isLessThan(1 << 20);

        vsm.run("import-stream", "bb:101/subvol-101-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        Path copy = b.resolve("images/101/subvol-101-disk-0.subvol");
        assertThat(tree(copy))
                .isEqualTo(tree(subvol))
                .contains("etc/hostname f 644 100000:100000 6 2 \n")
                .contains("null c ")
                .contains("fifo p ")
                .contains("usr/lib d 4755 ");
        ByteBuffer foo = ByteBuffer.allocate(16);
        Files.getFileAttributeView(copy.resolve("etc/hostname"), UserDefinedFileAttributeView.class)
                .read("foo", foo);
        assertThat(new String(foo.array(), 0, foo.position(), StandardCharsets.UTF_8))
                .isEqualTo("bar");
        assertThat(Images.run("stat", "-c", "%b", copy.resolve("holes").toString())
                        .strip())
                .as("blocks of the 64 MiB file with no data")
                .isEqualTo("0");
    }

    @Test
    void theStreamIsTheSizeHeaderZeroThenPvesTarOfTheDirectory() throws IOException {
        List<String> pveTar = new ArrayList<>(List.of("tar"));
        pveTar.addAll(PVE_TAR_FLAGS);
        pveTar.addAll(List.of("-cf", sandbox.resolve("pve.tar").toString(), "-C", subvol.toString(), "."));
        // the first read moves the entries' access times (relatime), which pax headers hold
        Images.run(pveTar.toArray(String[]::new));
        Images.run(pveTar.toArray(String[]::new));
        Path stream = sandbox.resolve("vsm.stream");
        vsm.run("export", "aa:100/subvol-100-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        byte[] bytes = Files.readAllBytes(stream);
        assertThat(Arrays.copyOf(bytes, 8)).as("pve's size of a directory").isEqualTo(new byte[8]);
        assertThat(Arrays.copyOfRange(bytes, 8, bytes.length))
                .isEqualTo(Files.readAllBytes(sandbox.resolve("pve.tar")));

        // and the stream pve's volume_export writes, its tar's archive behind the header 0, is imported
        Path pveStream = sandbox.resolve("pve.stream");
        Files.write(pveStream, new byte[8]);
        Files.write(pveStream, Files.readAllBytes(sandbox.resolve("pve.tar")), java.nio.file.StandardOpenOption.APPEND);
        vsm.run("import-stream", "bb:101/subvol-101-disk-0.subvol", "tar+size", pveStream.toString(), "-q")
                .ok();
        assertThat(tree(b.resolve("images/101/subvol-101-disk-0.subvol"))).isEqualTo(tree(subvol));
    }

    /**
     * An import killed after tar has written the subvol under its temporary name, before the name
     * is given: the temporary directory is never listed, and the next import into the same guest
     * directory or {@code vsm cleanup} removes it as a tree, without following the links in it.
     */
    @Test
    void aKilledImportLeavesATemporaryTreeThatTheNextRunOrCleanupRemoves() throws IOException {
        Path outside = sandbox.resolve("outside");
        Files.createDirectories(outside);
        Files.writeString(outside.resolve("keep"), "not the subvol's\n");
        Files.createSymbolicLink(subvol.resolve("out"), outside);
        Path stream = sandbox.resolve("vsm.stream");
        vsm.run("export", "aa:100/subvol-100-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        Path guest = b.resolve("images/101");

        killBeforePublishing(stream, "bb:101/subvol-101-disk-1.subvol", guest);
        assertThat(vsm.run("list", "bb").ok().lines()).as("nothing listed").hasSize(1);
        vsm.run("import-stream", "bb:101/subvol-101-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        assertThat(Images.files(guest))
                .as("the next import removed the killed one's tree")
                .containsExactly("subvol-101-disk-0.subvol");

        killBeforePublishing(stream, "bb:101/subvol-101-disk-1.subvol", guest);
        assertThat(vsm.run("cleanup", "bb").ok().out()).contains("images/101/.subvol-101-disk-1.subvol.vsm-tmp-");
        assertThat(Images.files(guest)).containsExactly("subvol-101-disk-0.subvol");
        assertThat(vsm.run("cleanup", "bb").ok().out()).startsWith("nothing to clean up");
        assertThat(outside.resolve("keep")).as("the link's target").hasContent("not the subvol's\n");
        assertThat(tree(guest.resolve("subvol-101-disk-0.subvol"))).isEqualTo(tree(subvol));
    }

    /** Starts the import, stops it where it is about to give the written tree its name, and kills it. */
    private void killBeforePublishing(Path stream, String volid, Path guest) {
        Vsm.Started started = vsm.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=move")
                .start("import-stream", volid, "tar+size", stream.toString());
        vsm.env("VSM_JAVA_OPTS", ""); // the next commands run through
        try {
            started.awaitPaused(120);
            assertThat(Images.files(guest))
                    .anyMatch(n -> n.startsWith("." + volid.substring(volid.indexOf('/') + 1) + ".vsm-tmp-"));
        } finally {
            started.process().destroyForcibly(); // the process this test started, by its handle
        }
        assertThat(started.finish().exit()).isEqualTo(137);
    }

    /** Each stream is refused with one line and exit 2; nothing is made in the storage or outside it. */
    @Test
    void hostileStreamsAreRefusedWholeAndLeaveNothing() throws IOException {
        Path outside = Files.createDirectories(sandbox.resolve("outside"));
        Files.writeString(outside.resolve("secret"), "secret\n");
        List<Map.Entry<String, TarStream>> refused = new ArrayList<>();
        add(
                refused,
                "leads out of the subvol ('..')",
                new TarStream(0).file("../../../../../outside/escaped", "x").end());
        add(
                refused,
                "is absolute",
                new TarStream(0).file(outside.resolve("escaped") + "", "x").end());
        add(
                refused,
                "goes through the symbolic link 'out' the stream made",
                new TarStream(0)
                        .symlink("out", outside.toString())
                        .file("out/escaped", "x")
                        .end());
        add(
                refused,
                "goes through the symbolic link 'x/in' the stream made",
                new TarStream(0).symlink("x/in", ".").file("x/in/escaped", "x").end());
        add(
                refused,
                "member name '" + outside.resolve("secret") + "' is absolute",
                new TarStream(0)
                        .hardLink("h", outside.resolve("secret").toString())
                        .end());
        add(
                refused,
                "member 'h' goes through the symbolic link 'out'",
                new TarStream(0)
                        .symlink("out", outside.toString())
                        .hardLink("h", "out/secret")
                        .end());
        add(
                refused,
                "member name '../../../../../outside/escaped' leads out",
                new TarStream(0)
                        .pax(Map.of("path", "../../../../../outside/escaped"))
                        .file("innocent", "x")
                        .end());
        add(
                refused,
                "member name '../../../../../outside/escaped' leads out",
                new TarStream(0)
                        .pax(Map.of("GNU.sparse.name", "../../../../../outside/escaped"))
                        .file("innocent", "x")
                        .end());
        add(
                refused,
                "leads out of the subvol",
                new TarStream(0)
                        .longName("../../../../../outside/escaped")
                        .file("innocent", "x")
                        .end());
        add(
                refused,
                "a pax header holds something other than records",
                new TarStream(0)
                        .member("p", 'x', "", "99 path=innocent\n".getBytes(StandardCharsets.UTF_8))
                        .file("innocent", "x")
                        .end());
        add(
                refused,
                "two extended headers of type 'x' for one member",
                new TarStream(0)
                        .pax(Map.of("path", "a"))
                        .pax(Map.of("path", "b"))
                        .file("c", "x")
                        .end());
        add(
                refused,
                "is of tar type 'g'",
                new TarStream(0)
                        .member("g", 'g', "", "19 path=../escaped\n".getBytes(StandardCharsets.UTF_8))
                        .file("innocent", "x")
                        .end());
        add(
                refused,
                "claims 5 bytes of data",
                new TarStream(0)
                        .member("d", '5', "", "xxxxx".getBytes(StandardCharsets.UTF_8))
                        .end());
        add(
                refused,
                "checksum mismatch",
                new TarStream(0).raw(new byte[] {'x'}).raw(new byte[511]).end());
        add(refused, "ends before the archive's end (truncated stream?)", new TarStream(0).file("a", "x"));
        add(
                refused,
                "holds data after the archive's end",
                new TarStream(0).file("a", "x").end().raw("junk".getBytes(StandardCharsets.UTF_8)));
        add(
                refused,
                "storage does not support subvol quotas",
                new TarStream(1 << 20).file("a", "x").end());
        Path stream = sandbox.resolve("hostile.stream");
        for (Map.Entry<String, TarStream> e : refused) {
            Files.write(stream, e.getValue().bytes());
            vsm.run("import-stream", "bb:101/subvol-101-disk-0.subvol", "tar+size", stream.toString())
                    .badInput(e.getKey());
            assertThat(Images.files(b.resolve("images"))).as(e.getKey()).isEmpty();
            assertThat(Images.files(outside)).as(e.getKey()).containsExactly("secret");
        }
        // a stream cut inside a member, from a real export
        stream = sandbox.resolve("cut.stream");
        vsm.run("export", "aa:100/subvol-100-disk-0.subvol", "tar+size", stream.toString(), "-q")
                .ok();
        byte[] whole = Files.readAllBytes(stream);
        Files.write(stream, Arrays.copyOf(whole, 8 + 512 * 3 + 100));
        vsm.run("import-stream", "bb:101/subvol-101-disk-0.subvol", "tar+size", stream.toString())
                .badInput("import: refusing the tar+size stream: it ends before the archive's end (truncated stream?)");
        assertThat(Images.files(b.resolve("images"))).isEmpty();
    }

    private static void add(List<Map.Entry<String, TarStream>> list, String message, TarStream stream) {
        list.add(Map.entry(message, stream));
    }
}
