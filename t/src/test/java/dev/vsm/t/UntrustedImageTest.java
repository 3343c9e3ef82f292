package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.ScratchDisk;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.RootTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Images vsm did not make, through the real cli/vsm and qemu-img: each attack names data outside
 * the image (a canary file of this host, a block device, a {@code json:} or {@code nbd://}
 * backing) for qemu-img to read into the new volume. Each is refused with exit 2 and one line,
 * and leaves the storage as it was: no volume, no temporary file, the canary's bytes nowhere in
 * it. Self-contained images of every format still import.
 */
class UntrustedImageTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path storage;
    private Path sources;
    private Path canary;
    private byte[] marker;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox);
        vsm.run("status").ok(); // makes the storage's directories
        storage = vsm.defaultLocal();
        sources = Files.createDirectories(sandbox.resolve("sources"));
        marker = ("VSM-CANARY-" + System.nanoTime() + "-").getBytes(StandardCharsets.US_ASCII);
        canary = sandbox.resolve("host/secret");
        Files.createDirectories(canary.getParent());
        Files.write(canary, canaryBytes(1 << 20));
    }

    @Test
    void aQcow2BackedByAHostFileIsRefusedByPathWhateverTheFormatsGiven() {
        Path image = qcow2Backed("appliance.qcow2", canary.toString(), "raw");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--format", "raw"),
                "its qcow2 header names the backing file '" + canary + "'");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--format", "qcow2"),
                "names the backing file");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--source-format", "qcow2"),
                "names the backing file");
        // read as raw, the same file is only bytes: its header, not the canary
        vsm.run("import", "local", "101", image.toString(), "--source-format", "raw", "-q")
                .ok();
        assertCanaryNowhere();
    }

    @Test
    void anImportVolumeBackedByAHostFileIsRefusedByIdAndByPath() throws IOException {
        Path image = qcow2Backed("appliance.qcow2", canary.toString(), "raw");
        Path volume = Files.copy(image, storage.resolve("import/appliance.qcow2"));
        refused(
                () -> vsm.run("import", "local", "101", "local:import/appliance.qcow2", "--format", "raw"),
                "refusing source 'local:import/appliance.qcow2': its qcow2 header names the backing file");
        refused(() -> vsm.run("import", "local", "101", volume.toString()), "names the backing file");
        refused(
                () -> vsm.run("copy", "local:import/appliance.qcow2", "local", "--vmid", "101"),
                "names the backing file");
        // qemu-img info opens the files a vmdk's extents name: vsm info of an import volume inspects it first
        Files.writeString(
                storage.resolve("import/flat.vmdk"),
                "version=1\ncreateType=\"monolithicFlat\"\nRW 2048 FLAT \"" + canary + "\" 0\n");
        refused(() -> vsm.run("info", "local:import/flat.vmdk"), "its extents name ('" + canary + "')");
    }

    @Test
    void aQcow2ExternalDataFileIsRefused() {
        Path image = sources.resolve("data.qcow2");
        Images.run(
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-o",
                "data_file=" + canary + ",data_file_raw=on",
                image.toString(),
                "1M");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--format", "raw"),
                "names an external data file");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--source-format", "qcow2"),
                "external data file");
    }

    @Test
    void aVmdkDescriptorNamingAHostFileIsRefused() throws IOException {
        Path image = Files.writeString(sources.resolve("flat.vmdk"), """
                # Disk DescriptorFile
                version=1
                CID=fffffffe
                parentCID=ffffffff
                createType="monolithicFlat"

                RW 2048 FLAT "%s" 0
                """.formatted(canary));
        refused(
                () -> vsm.run("import", "local", "101", image.toString()),
                "it is a vmdk descriptor file: its data is in the files its extents name ('" + canary + "')");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--source-format", "vmdk"),
                "vmdk descriptor file");
        Path relative = Files.writeString(
                sources.resolve("relative.vmdk"),
                "version=1\r\ncreateType=\"vmfs\"\r\nRW 2048 VMFS \"../host/secret\"\r\n");
        refused(() -> vsm.run("import", "local", "101", relative.toString()), "('../host/secret')");
    }

    @Test
    void aJsonBackingNameIsRefused() {
        String json = "json:{\"driver\":\"raw\",\"file\":{\"driver\":\"file\",\"filename\":\"" + canary + "\"}}";
        Path image = qcow2Backed("json.qcow2", json, "raw");
        refused(
                () -> vsm.run("import", "local", "101", image.toString(), "--format", "raw"),
                "names the backing file 'json:{");
    }

    @RootTest
    @Test
    void aBlockDeviceAsBackingFileIsRefused() throws IOException {
        ScratchDisk.requireRootLoopAndTools("losetup");
        try (ScratchDisk disk = ScratchDisk.create(sandbox, 4 << 20)) {
            try (RandomAccessFile dev = new RandomAccessFile(disk.device().toFile(), "rw")) {
                dev.write(canaryBytes(1 << 20));
            }
            Path image = qcow2Backed("device.qcow2", disk.device().toString(), "raw");
            refused(
                    () -> vsm.run("import", "local", "101", image.toString(), "--format", "raw"),
                    "names the backing file '" + disk.device() + "'");
        }
    }

    @Test
    void anNbdBackingIsRefusedWithoutAConnection() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            AtomicInteger connections = new AtomicInteger();
            Thread listener = new Thread(
                    () -> {
                        while (server.isOpen()) {
                            try {
                                SocketChannel c = server.accept();
                                connections.incrementAndGet();
                                c.close(); // at once: qemu fails instead of waiting for a handshake
                            } catch (IOException e) {
                                return;
                            }
                        }
                    },
                    "nbd-listener");
            listener.setDaemon(true);
            listener.start();
            Path image = qcow2Backed("nbd.qcow2", "nbd://127.0.0.1:" + port + "/export", "raw");
            refused(
                    () -> vsm.run("import", "local", "101", image.toString(), "--format", "raw"),
                    "names the backing file 'nbd://127.0.0.1:" + port + "/export'");
            refused(() -> vsm.run("import", "local", "101", image.toString(), "--source-format", "qcow2"), "nbd://");
            assertThat(connections.get())
                    .as("connections to the nbd:// backing")
                    .isZero();
        }
    }

    /**
     * A guest writes a qcow2 header (backing file: the canary) over its own raw disk; imported by
     * its host path, the disk is still read as the raw volume it is, header bytes and all.
     */
    @Test
    void aRawVolumeWhoseGuestWroteAQcow2HeaderIsReadAsRaw() throws IOException {
        vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "4M").ok();
        Path disk = storage.resolve("images/100/vm-100-disk-0.raw");
        byte[] header = Files.readAllBytes(qcow2Backed("header.qcow2", canary.toString(), "raw"));
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.write(header);
        }
        byte[] guestBytes = Files.readAllBytes(disk);
        vsm.run("import", "local", "101", disk.toString(), "--format", "raw", "-q")
                .ok();
        assertThat(java.util.Arrays.equals(
                        Files.readAllBytes(storage.resolve("images/101/vm-101-disk-0.raw")), guestBytes))
                .as("the new volume holds the guest's bytes, its qcow2 header included")
                .isTrue();
        assertCanaryNowhere();
        refused(
                () -> vsm.run("import", "local", "101", disk.toString(), "--source-format", "qcow2"),
                "source 'local:100/vm-100-disk-0.raw' is a volume of format raw, read as raw");
    }

    /** An OVA whose sparse vmdk names a parent in its embedded descriptor (the magic is KDMV, the descriptor hostile). */
    @Test
    void anOvaWithASparseVmdkNamingAParentIsRefused() throws IOException {
        Path parent = Images.convert(canary, "vmdk", sandbox.resolve("host/parent.vmdk"));
        Path child = Images.convert(Images.raw(sources, "small.raw", 1, 5), "vmdk", sources.resolve("disk1.vmdk"));
        embed(child, "parentFileNameHint=\"" + parent + "\"");
        new OvaImportTest.Tar()
                .file("disk1.vmdk", Files.readAllBytes(child))
                .writeTo(storage.resolve("import/hint.ova"));
        refused(
                () -> vsm.run("import", "local", "101", "local:import/hint.ova/disk1.vmdk", "--format", "raw"),
                "its embedded vmdk descriptor names a parent image (parentFileNameHint)");
        refused(() -> vsm.run("import", "local", "101", child.toString(), "--format", "raw"), "(parentFileNameHint)");

        Path flat = Images.convert(Images.raw(sources, "small2.raw", 1, 6), "vmdk", sources.resolve("disk2.vmdk"));
        embed(flat, "RW 2048 FLAT \"" + canary + "\" 0");
        refused(() -> vsm.run("import", "local", "101", flat.toString(), "--format", "raw"), "names 2 extents");
    }

    /** A qcow2+size stream is a qcow2 file as it is: one whose header names a backing file would make a volume that reads it. */
    @Test
    void aQcow2StreamNamingABackingFileLeavesNoVolume() throws IOException {
        byte[] image = Files.readAllBytes(qcow2Backed("stream.qcow2", canary.toString(), "raw"));
        Path stream = sources.resolve("q.stream");
        Files.write(
                stream,
                java.nio.ByteBuffer.allocate(8)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .putLong(1 << 20)
                        .array());
        Files.write(stream, image, java.nio.file.StandardOpenOption.APPEND);
        refused(
                () -> vsm.run(
                        "import-stream",
                        "local:100/vm-100-disk-0.qcow2",
                        "qcow2+size",
                        stream.toString(),
                        "--with-snapshots",
                        "1"),
                "its qcow2 header names the backing file '" + canary + "'");
        assertThat(Images.files(storage.resolve("images/100"))).isEmpty();
    }

    @Test
    void selfContainedImagesOfEveryFormatStillImport() {
        Path raw = Images.raw(sources, "disk.raw", 3, 11);
        int disk = 0;
        for (String[] f : new String[][] {
            {"qcow2", ""},
            {"vmdk", "subformat=monolithicSparse"},
            {"vmdk", "subformat=streamOptimized"},
            {"vdi", ""},
            {"vhdx", ""},
            {"vpc", "subformat=dynamic"},
            {"qed", ""}
        }) {
            Path image = sources.resolve("disk-" + disk + "." + f[0]);
            List<String> argv = new ArrayList<>(List.of("qemu-img", "convert", "-f", "raw", "-O", f[0]));
            if (!f[1].isEmpty()) {
                argv.addAll(List.of("-o", f[1]));
            }
            argv.addAll(List.of(raw.toString(), image.toString()));
            Images.run(argv.toArray(String[]::new));
            Vsm.Result r = vsm.run(
                            "import",
                            "local",
                            "102",
                            image.toString(),
                            "--format",
                            "qcow2",
                            "--output-format",
                            "json",
                            "-q")
                    .ok();
            assertThat(r.json().get("source-format").asText()).isEqualTo(f[0]);
            Path volume = storage.resolve("images/102/vm-102-disk-" + disk + ".qcow2");
            assertThat(Images.same(image, f[0], volume, "qcow2"))
                    .as("%s %s", f[0], f[1])
                    .isTrue();
            disk++;
        }
    }

    /**
     * A source swapped between vsm's inspection and qemu-img's read: another process flips the
     * path between a clean qcow2 and one backed by the canary, as fast as it can, through twenty
     * imports. Each import is refused with exit 2 and one line (the source changed while it was
     * read, or the inspection saw the backed image), or imports the clean image; the canary's
     * bytes never reach the storage, and no volume is left but those of the imports that
     * succeeded (an import whose source changed under qemu-img is undone).
     */
    @Test
    void aSourceSwappedWhileItIsReadIsRefusedAndUndone() throws Exception {
        Path clean = sources.resolve("clean.qcow2");
        Images.run("qemu-img", "create", "-q", "-f", "qcow2", clean.toString(), "1M");
        Path backed = qcow2Backed("backed.qcow2", canary.toString(), "raw");
        Path source = Files.createLink(sources.resolve("disk.qcow2"), clean);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger flips = new AtomicInteger();
        Thread flipper = new Thread(
                () -> {
                    Path next = sources.resolve("next");
                    try {
                        while (!stop.get()) {
                            Files.deleteIfExists(next);
                            Files.createLink(next, flips.getAndIncrement() % 2 == 0 ? backed : clean);
                            Files.move(
                                    next, source, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                        }
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                "flipper");
        flipper.start();
        int imported = 0;
        try {
            for (int round = 0; round < 20; round++) {
                Vsm.Result r = vsm.run("import", "local", "101", source.toString(), "--format", "raw", "-q");
                if (r.exit() == 0) {
                    imported++;
                    continue;
                }
                assertThat(r.exit())
                        .as("exit status of a refused import: %s", r.err())
                        .isEqualTo(2);
                assertThat(r.err().strip().lines()).hasSize(1);
                assertThat(r.err()).containsAnyOf("changed while vsm read it", "names the backing file");
            }
        } finally {
            stop.set(true);
            flipper.join();
        }
        assertThat(flips.get()).as("the flips during the imports").isGreaterThan(100);
        assertCanaryNowhere();
        try (Stream<Path> volumes = Files.list(storage.resolve("images/101"))) {
            assertThat(volumes.count())
                    .as("volumes left by %d successful imports", imported)
                    .isEqualTo(imported);
        } catch (java.nio.file.NoSuchFileException none) {
            assertThat(imported).isZero();
        }
    }

    // --- helpers ---

    private Path qcow2Backed(String name, String backing, String backingFormat) {
        Path image = sources.resolve(name);
        List<String> argv = new ArrayList<>(List.of("qemu-img", "create", "-q", "-f", "qcow2", "-u", "-b", backing));
        if (backingFormat != null) {
            argv.addAll(List.of("-F", backingFormat));
        }
        argv.addAll(List.of(image.toString(), "1M"));
        Images.run(argv.toArray(String[]::new));
        return image;
    }

    /** Adds a line to the descriptor qemu-img embeds at byte 512 of a sparse vmdk (its padding has room). */
    private static void embed(Path vmdk, String line) throws IOException {
        byte[] bytes = Files.readAllBytes(vmdk);
        int end = 512;
        while (bytes[end] != 0) {
            end++;
        }
        String text = new String(bytes, 512, end - 512, StandardCharsets.US_ASCII);
        String changed = text.replace("createType=", line + "\ncreateType=");
        assertThat(changed).isNotEqualTo(text);
        byte[] b = changed.getBytes(StandardCharsets.US_ASCII);
        assertThat(b.length).isLessThan(10 * 512);
        System.arraycopy(b, 0, bytes, 512, b.length);
        Files.write(vmdk, bytes);
    }

    private byte[] canaryBytes(int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length);
        while (out.size() < length) {
            out.writeBytes(marker);
        }
        return java.util.Arrays.copyOf(out.toByteArray(), length);
    }

    /** Refused: exit 2, one line, and the storage holds exactly what it held before. */
    private void refused(java.util.function.Supplier<Vsm.Result> command, String message) {
        Map<String, String> before = Tree.snapshot(storage);
        command.get().badInput(message);
        assertThat(Tree.snapshot(storage))
                .as("the storage after a refused import")
                .isEqualTo(before);
        assertCanaryNowhere();
    }

    private void assertCanaryNowhere() {
        try (Stream<Path> files = Files.walk(storage)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(indexOf(Files.readAllBytes(f), marker))
                        .as("the canary's bytes in %s", f)
                        .isNegative();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int indexOf(byte[] data, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= data.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (data[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
