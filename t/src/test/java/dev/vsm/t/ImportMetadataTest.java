package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.Images;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm import-metadata} on OVFs and OVAs of a dir storage's import content, with real
 * qemu-img images as their disks. The first tests are pve-storage's {@code run_ovf_tests.pl}
 * vectors (a guest with two disks on one SCSI controller; one disk with the RASD namespace declared
 * on the envelope; the same with it declared on each element and EFI firmware; a descriptor with an
 * external entity refused) on vsm's own descriptors ({@code src/test/resources/ovf}); then what a
 * hostile descriptor or archive tries, each refused with one line and exit status 2.
 */
class ImportMetadataTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path importDir;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox);
        vsm.run("status").ok(); // makes the storage's directories
        importDir = vsm.defaultLocal().resolve("import");
        for (String name : List.of("harbor-two-disks.ovf", "kestrel.ovf", "kestrel-no-default-ns.ovf")) {
            Files.write(importDir.resolve(name), resource(name));
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = ImportMetadataTest.class.getResourceAsStream("/ovf/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    private void image(String name, String format, String size) {
        Images.run(
                "qemu-img",
                "create",
                "-q",
                "-f",
                format,
                importDir.resolve(name).toString(),
                size);
    }

    private JsonNode metadata(String volume) {
        Vsm.Result r = vsm.run("import-metadata", "local:import/" + volume).ok();
        assertThat(r.err()).as("no warnings").isEmpty();
        return r.json();
    }

    // --- pve's run_ovf_tests.pl vectors

    @Test
    void aGuestWithTwoDisksOnOneScsiController() {
        image("harbor-a.vmdk", "vmdk", "3M");
        image("harbor-b.qcow2", "qcow2", "2M");
        JsonNode m = metadata("harbor-two-disks.ovf");

        assertThat(m.path("type").asText()).isEqualTo("vm");
        assertThat(m.path("source").asText()).isEqualTo("import/harbor-two-disks.ovf");
        JsonNode disks = m.path("disks");
        assertThat(disks.path("scsi0").path("volid").asText()).isEqualTo("local:import/harbor-a.vmdk");
        assertThat(disks.path("scsi0").path("size").asLong())
                .as("the image's own size")
                .isEqualTo(3L << 20);
        assertThat(disks.path("scsi1").path("volid").asText()).isEqualTo("local:import/harbor-b.qcow2");
        assertThat(disks.path("scsi1").path("size").asLong()).isEqualTo(2L << 20);
        assertThat(fields(disks)).as("the cdrom is no disk").containsExactly("scsi0", "scsi1");
        assertThat(m.path("net").path("net0").path("model").asText()).isEqualTo("e1000");

        JsonNode args = m.path("create-args");
        assertThat(args.path("boot").asText()).isEqualTo("order=scsi0;scsi1");
        assertThat(args.path("name").asText()).as("made a DNS name").isEqualTo("HarborGate-R7-x64");
        assertThat(args.path("memory").asText()).isEqualTo("3072");
        assertThat(args.path("cores").asText()).isEqualTo("2");
        assertThat(args.path("ostype").asText()).isEqualTo("l26");
        assertThat(args.has("bios")).isFalse();
        assertThat(m.path("warnings").size()).isZero();
    }

    @Test
    void aGuestWithOneDisk() {
        image("kestrel-disk1.vmdk", "vmdk", "1M");
        JsonNode m = metadata("kestrel.ovf");

        assertThat(m.path("disks").path("scsi0").path("volid").asText()).isEqualTo("local:import/kestrel-disk1.vmdk");
        assertThat(m.path("disks").path("scsi0").path("size").asLong()).isEqualTo(1L << 20);
        assertThat(m.path("net").path("net0").path("model").asText()).isEqualTo("e1000e");
        JsonNode args = m.path("create-args");
        assertThat(args.path("boot").asText()).isEqualTo("order=scsi0");
        assertThat(args.path("name").asText()).isEqualTo("Kestrel-W10");
        assertThat(args.path("memory").asText()).isEqualTo("5120");
        assertThat(args.path("cores").asText()).isEqualTo("6");
        assertThat(args.path("ostype").asText())
                .as("older exports' id for Windows 10")
                .isEqualTo("other");
    }

    @Test
    void aGuestWithTheResourceNamespaceOnEachElementAndEfiFirmware() throws IOException {
        image("kestrel-disk1.vmdk", "vmdk", "1M");
        Vsm.Result r = vsm.run("import-metadata", "local:import/kestrel-no-default-ns.ovf")
                .ok();
        assertThat(r.err()).isEmpty();
        JsonNode m = r.json();

        assertThat(m.path("disks").path("scsi0").path("volid").asText()).isEqualTo("local:import/kestrel-disk1.vmdk");
        assertThat(m.path("disks").path("scsi0").path("size").asLong()).isEqualTo(1L << 20);
        assertThat(m.path("disks").path("efidisk0").asInt()).isEqualTo(1);
        assertThat(m.path("net").path("net0").path("model").asText()).isEqualTo("e1000e");
        JsonNode args = m.path("create-args");
        assertThat(args.path("boot").asText()).isEqualTo("order=scsi0");
        assertThat(args.path("name").asText()).isEqualTo("Kestrel-W10");
        assertThat(args.path("memory").asText()).isEqualTo("5120");
        assertThat(args.path("cores").asText()).isEqualTo("6");
        assertThat(args.path("ostype").asText()).isEqualTo("other");
        assertThat(args.path("bios").asText()).isEqualTo("ovmf");
        assertThat(m.path("warnings").toString())
                .isEqualTo("[{\"key\":\"bios\",\"type\":\"efi-state-lost\",\"value\":\"ovmf\"}]");
        assertThat(r.out())
                .as("pve's JSON: keys sorted, sizes as numbers, the rest as strings")
                .isEqualTo("{\"create-args\":{\"bios\":\"ovmf\",\"boot\":\"order=scsi0\",\"cores\":\"6\","
                        + "\"memory\":\"5120\",\"name\":\"Kestrel-W10\",\"ostype\":\"other\"},\"disks\":{\"efidisk0\":1,"
                        + "\"scsi0\":{\"size\":1048576,\"volid\":\"local:import/kestrel-disk1.vmdk\"}},\"net\":{\"net0\":"
                        + "{\"model\":\"e1000e\"}},\"source\":\"import/kestrel-no-default-ns.ovf\",\"type\":\"vm\","
                        + "\"warnings\":[{\"key\":\"bios\",\"type\":\"efi-state-lost\",\"value\":\"ovmf\"}]}\n");
    }

    @Test
    void anExternalEntityIsRefused() throws IOException {
        write("xee.ovf", """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE probe [<!ENTITY leak SYSTEM "file:///etc/hostname">]>
                <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1">
                  <VirtualSystem><Name>&leak;</Name></VirtualSystem>
                </Envelope>
                """);
        refused("xee.ovf", "refusing OVF 'local:import/xee.ovf': it has a document type declaration");
    }

    // --- an OVA

    @Test
    void anOvaGivesItsDisksInsideItWithTheDescriptorsCapacity() throws IOException {
        image("kestrel-disk1.vmdk", "vmdk", "1M");
        new OvaImportTest.Tar()
                .file("kestrel.ovf", resource("kestrel-no-default-ns.ovf"))
                .file("kestrel-disk1.vmdk", Files.readAllBytes(importDir.resolve("kestrel-disk1.vmdk")))
                .writeTo(importDir.resolve("kestrel.ova"));
        JsonNode m = metadata("kestrel.ova");
        assertThat(m.path("source").asText()).isEqualTo("import/kestrel.ova");
        assertThat(m.path("disks").path("scsi0").path("volid").asText())
                .isEqualTo("local:import/kestrel.ova/kestrel-disk1.vmdk");
        assertThat(m.path("disks").path("scsi0").path("size").asLong())
                .as("64 GiB, as the descriptor says")
                .isEqualTo(64L << 30);
        assertThat(m.path("warnings").toString())
                .isEqualTo("[{\"type\":\"ova-needs-extracting\"},"
                        + "{\"key\":\"bios\",\"type\":\"efi-state-lost\",\"value\":\"ovmf\"}]");
    }

    @Test
    void anOvaWhoseDescriptorNamesADiskItDoesNotHoldIsRefused() throws IOException {
        new OvaImportTest.Tar()
                .file("kestrel.ovf", resource("kestrel.ovf"))
                .file("other.vmdk", new byte[512])
                .writeTo(importDir.resolve("lying.ova"));
        refused("lying.ova", "names the disk 'kestrel-disk1.vmdk', which the archive does not hold");
    }

    @Test
    void anOvaWhoseHeaderLiesAboutItsSizeIsRefused() throws IOException {
        byte[] whole = new OvaImportTest.Tar()
                .file("kestrel.ovf", resource("kestrel.ovf"))
                .bytes();
        Files.write(importDir.resolve("cut.ova"), java.util.Arrays.copyOf(whole, 1024));
        refused("cut.ova", "refusing OVA");
    }

    @Test
    void anOvaWithoutDescriptorIsRefused() throws IOException {
        new OvaImportTest.Tar().file("disk.vmdk", new byte[512]).writeTo(importDir.resolve("bare.ova"));
        refused("bare.ova", "it holds no OVF descriptor");
    }

    // --- hostile descriptors

    @Test
    void internalEntitiesAreRefusedToo() throws IOException {
        write("laughs.ovf", """
                <?xml version="1.0"?>
                <!DOCTYPE Envelope [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
                <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"><VirtualSystem><Name>&b;</Name></VirtualSystem></Envelope>
                """);
        refused("laughs.ovf", "document type declaration");
    }

    @Test
    void anExternalDtdIsRefused() throws IOException {
        write("dtd.ovf", """
                <?xml version="1.0"?>
                <!DOCTYPE Envelope SYSTEM "http://127.0.0.1:9/ovf.dtd">
                <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"/>
                """);
        refused("dtd.ovf", "document type declaration");
    }

    @Test
    void anUndeclaredEntityIsNotWellFormed() throws IOException {
        write("undeclared.ovf", """
                <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1"><VirtualSystem><Name>&x;</Name></VirtualSystem></Envelope>
                """);
        refused("undeclared.ovf", "it is not well-formed XML");
    }

    @Test
    void hugeElementCountsDepthsAndSizesAreRefused() throws IOException {
        write(
                "many.ovf",
                "<Envelope xmlns=\"http://schemas.dmtf.org/ovf/envelope/1\">" + "<Item/>".repeat(60_000)
                        + "</Envelope>");
        refused("many.ovf", "it has more than 50000 elements");

        write("deep.ovf", "<a>".repeat(100) + "</a>".repeat(100));
        refused("deep.ovf", "nest deeper than 64 levels");

        write(
                "big.ovf",
                "<Envelope xmlns=\"http://schemas.dmtf.org/ovf/envelope/1\"><Info>" + "x".repeat(5 << 20)
                        + "</Info></Envelope>");
        refused("big.ovf", "it is larger than 4194304 bytes");
    }

    @Test
    void aDiskPathOutOfTheDirectoryIsRefused() throws IOException {
        image("kestrel-disk1.vmdk", "vmdk", "1M");
        write("up.ovf", text("kestrel.ovf").replace("kestrel-disk1.vmdk", "../kestrel-disk1.vmdk"));
        refused("up.ovf", "the referenced path '../kestrel-disk1.vmdk' is invalid");

        write("abs.ovf", text("kestrel.ovf").replace("kestrel-disk1.vmdk", "/etc/kestrel.vmdk"));
        refused("abs.ovf", "the referenced path '/etc/kestrel.vmdk' is invalid");

        Files.createSymbolicLink(importDir.resolve("shadow.raw"), Path.of("/etc/hostname"));
        write("link.ovf", text("kestrel.ovf").replace("kestrel-disk1.vmdk", "shadow.raw"));
        refused("link.ovf", "its disk 'shadow.raw' is a symbolic link");
    }

    @Test
    void aMissingDiskOrOneThatIsNoImageIsRefused() throws IOException {
        write("missing.ovf", text("kestrel.ovf"));
        refused("missing.ovf", "names the disk 'kestrel-disk1.vmdk', which does not exist");

        Files.write(importDir.resolve("notes.txt"), new byte[512]);
        write("notes.ovf", text("kestrel.ovf").replace("kestrel-disk1.vmdk", "notes.txt"));
        refused("notes.ovf", "which is no import image (.qcow2, .raw or .vmdk)");

        Files.write(importDir.resolve("fake.qcow2"), "not an image".getBytes(StandardCharsets.UTF_8));
        write("fake.ovf", text("kestrel.ovf").replace("kestrel-disk1.vmdk", "fake.qcow2"));
        Vsm.Result r = vsm.run("import-metadata", "local:import/fake.ovf");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains("fake.qcow2");
    }

    @Test
    void whatPveSkipsIsAWarningOnStderr() throws IOException {
        image("harbor-a.vmdk", "vmdk", "3M");
        write(
                "skips.ovf",
                text("harbor-two-disks.ovf")
                        .replace("ovf:/disk/hd-b", "ovf:/disk/hd b")
                        .replace("<Name>Harbor_Gate-R7 x64</Name>", ""));
        Vsm.Result r = vsm.run("import-metadata", "local:import/skips.ovf").ok();
        assertThat(r.err()).isEqualTo("warning: invalid host resource ovf:/disk/hd b, skipping\n");
        JsonNode m = r.json();
        assertThat(fields(m.path("disks"))).containsExactly("scsi0");
        assertThat(m.path("create-args").path("name").asText())
                .as("the virtual system's ovf:id instead")
                .isEqualTo("harbor");
    }

    @Test
    void otherVolumesAreRefused() {
        image("kestrel-disk1.vmdk", "vmdk", "1M");
        refused("kestrel-disk1.vmdk", "has format 'vmdk': import-metadata reads .ovf and .ova files");
        vsm.run("import-metadata", "local:import/absent.ovf")
                .badInput("volume 'local:import/absent.ovf' does not exist");
        vsm.run("alloc", "local", "100", "", "1M").ok();
        vsm.run("import-metadata", "local:100/vm-100-disk-0.raw")
                .badInput("is of content type 'images': import-metadata reads the .ovf and .ova files of import");
    }

    private void write(String name, String text) throws IOException {
        Files.writeString(importDir.resolve(name), text);
    }

    private String text(String resource) throws IOException {
        return new String(resource(resource), StandardCharsets.UTF_8);
    }

    private void refused(String volume, String message) {
        List<String> before = Images.files(importDir);
        vsm.run("import-metadata", "local:import/" + volume).badInput(message);
        assertThat(Images.files(importDir)).as("nothing changed").isEqualTo(before);
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
