package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.Vsm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disks inside OVAs in a dir storage's import content ({@code local:import/x.ova/disk1.vmdk},
 * format {@code ova+vmdk}), through the real cli/vsm and qemu-img: listed below their OVA,
 * imported as any vmdk (compared with {@code qemu-img compare}); hostile archives refused with one
 * line and nothing left behind. The OVAs are written by {@link Tar} byte by byte, so that the
 * hostile ones can be made too.
 */
class OvaImportTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path raw;
    private Path vmdk;
    private Path importDir;
    private Path images;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox);
        vsm.run("status").ok(); // makes the storage's directories
        Path sources = Files.createDirectories(sandbox.resolve("sources"));
        raw = Images.raw(sources, "disk.raw", 6, 17);
        vmdk = Images.convert(raw, "vmdk", sources.resolve("disk1.vmdk"));
        importDir = vsm.defaultLocal().resolve("import");
        images = vsm.defaultLocal().resolve("images");
    }

    private static final String OVF = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1">
              <References><File ovf:href="disk1.vmdk" ovf:id="file1"/></References>
            </Envelope>
            """;

    private Tar appliance() throws IOException {
        return new Tar()
                .file("appliance.ovf", OVF.getBytes(StandardCharsets.UTF_8))
                .file("disk1.vmdk", Files.readAllBytes(vmdk));
    }

    @Test
    void aDiskInsideAnOvaIsListedAndImportedAsAnyVmdk() throws IOException {
        appliance().file("notes.txt", "x".getBytes(StandardCharsets.UTF_8)).writeTo(importDir.resolve("appliance.ova"));
        assertThat(vsm.run("list", "local", "--content", "import").ok().lines())
                .map(l -> l.replaceAll("\\s+", " "))
                .containsExactly(
                        "Volid Format Type Size VMID",
                        "local:import/appliance.ova ova import " + Files.size(importDir.resolve("appliance.ova")),
                        "local:import/appliance.ova/disk1.vmdk ova+vmdk import " + Files.size(vmdk));

        Vsm.Result r = vsm.run(
                        "import", "local", "100", "local:import/appliance.ova/disk1.vmdk", "--format", "qcow2", "-q")
                .ok();
        assertThat(r.out()).isEqualTo("successfully imported 'local:100/vm-100-disk-0.qcow2'\n");
        assertThat(Images.same(raw, "raw", images.resolve("100/vm-100-disk-0.qcow2"), "qcow2"))
                .isTrue();
        assertThat(Images.files(importDir)).as("the extracted copy is gone").containsExactly("appliance.ova");

        var json = vsm.run(
                        "import",
                        "local",
                        "101",
                        "local:import/appliance.ova/disk1.vmdk",
                        "-q",
                        "--output-format",
                        "json")
                .ok()
                .json();
        assertThat(json.get("source").asText()).isEqualTo("local:import/appliance.ova/disk1.vmdk");
        assertThat(json.get("source-format").asText()).isEqualTo("vmdk");
        assertThat(Images.same(raw, "raw", images.resolve("101/vm-101-disk-0.raw"), "raw"))
                .isTrue();
    }

    @Test
    void aMemberNameThatLeavesTheArchiveIsRefused() throws IOException {
        appliance().file("../x", "evil".getBytes(StandardCharsets.UTF_8)).writeTo(importDir.resolve("evil.ova"));
        refused("evil.ova", "member name '../x' leaves the archive's directory");
        assertThat(vsm.run("list", "local", "--content", "import").ok().lines())
                .as("the OVA, not its disks")
                .hasSize(2);
    }

    @Test
    void aLinkMemberIsRefused() throws IOException {
        new Tar()
                .file("appliance.ovf", OVF.getBytes(StandardCharsets.UTF_8))
                .symlink("disk1.vmdk", "/etc/passwd")
                .writeTo(importDir.resolve("link.ova"));
        refused("link.ova", "member 'disk1.vmdk' is a symbolic link");
    }

    @Test
    void aTruncatedArchiveIsRefused() throws IOException {
        byte[] whole = appliance().bytes();
        Files.write(importDir.resolve("cut.ova"), Arrays.copyOf(whole, whole.length / 2));
        refused("cut.ova", "it is truncated");
    }

    @Test
    void aVmdkDescriptorThatNamesHostFilesIsRefused() throws IOException {
        String descriptor = """
                # Disk DescriptorFile
                version=1
                CID=fffffffe
                parentCID=ffffffff
                createType="monolithicFlat"
                RW 8 FLAT "/etc/hostname" 0
                """;
        new Tar()
                .file("disk1.vmdk", descriptor.getBytes(StandardCharsets.UTF_8))
                .writeTo(importDir.resolve("flat.ova"));
        refused(
                "flat.ova",
                "it is a vmdk descriptor file: its data is in the files its extents name ('/etc/hostname')");
    }

    @Test
    void aMissingDiskIsBadInput() throws IOException {
        appliance().writeTo(importDir.resolve("appliance.ova"));
        vsm.run("import", "local", "100", "local:import/appliance.ova/disk2.vmdk")
                .badInput("holds no 'disk2.vmdk'");
        assertThat(Images.files(images)).isEmpty();
    }

    @Test
    void aCopyLeftByAKilledImportIsRemovedByCleanup() throws IOException {
        appliance().writeTo(importDir.resolve("appliance.ova"));
        Path dead = importDir.resolve(".appliance.ova-disk1.vmdk.vsm-tmp-" + node() + "-999999999-0123abcd");
        Files.write(dead, new byte[4096]);
        assertThat(vsm.run("list", "local", "--content", "import").ok().lines()).hasSize(3);
        assertThat(vsm.run("cleanup", "local").ok().out()).contains(".appliance.ova-disk1.vmdk.vsm-tmp-");
        assertThat(Images.files(importDir)).containsExactly("appliance.ova");
    }

    private String node() {
        return vsm.environment()
                .getOrDefault("VSM_NODE", Images.run("hostname", "-s").strip())
                .replaceAll("[^A-Za-z0-9_.]", "_");
    }

    private void refused(String ova, String message) {
        vsm.run("import", "local", "100", "local:import/" + ova + "/disk1.vmdk").badInput(message);
        assertThat(Images.files(images)).as("no image").isEmpty();
        assertThat(Images.files(importDir)).as("nothing extracted").containsExactly(ova);
    }

    /** A POSIX (ustar) tar archive written byte by byte: regular files and symbolic links. */
    static final class Tar {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Tar file(String name, byte[] data) {
            header(name, '0', data.length, "");
            out.writeBytes(data);
            out.writeBytes(new byte[(512 - data.length % 512) % 512]);
            return this;
        }

        Tar symlink(String name, String target) {
            header(name, '2', 0, target);
            return this;
        }

        private void header(String name, char type, long size, String link) {
            byte[] h = new byte[512];
            put(h, 0, name);
            put(h, 100, "0000644");
            put(h, 108, "0000000");
            put(h, 116, "0000000");
            put(h, 124, String.format("%011o", size));
            put(h, 136, "00000000000");
            h[156] = (byte) type;
            put(h, 157, link);
            put(h, 257, "ustar");
            put(h, 263, "00");
            Arrays.fill(h, 148, 156, (byte) ' ');
            int sum = 0;
            for (byte b : h) {
                sum += b & 0xff;
            }
            put(h, 148, String.format("%06o", sum));
            out.writeBytes(h);
        }

        private static void put(byte[] h, int at, String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(b, 0, h, at, b.length);
        }

        byte[] bytes() {
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            whole.writeBytes(out.toByteArray());
            whole.writeBytes(new byte[1024]);
            return whole.toByteArray();
        }

        void writeTo(Path file) throws IOException {
            Files.write(file, bytes());
        }
    }
}
