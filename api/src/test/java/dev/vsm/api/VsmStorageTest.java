package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every call of the facade on a real dir storage with the real qemu-img, and the refusals it shares with the command line. */
class VsmStorageTest {
    private static final long MIB_KIB = 1024;

    @TempDir
    Path dir;

    private VsmStorage vsm() {
        return VsmStorage.builder()
                .configText("""
                        storages:
                          images:
                            type: dir
                            path: %s
                            content: [images, import]
                          off:
                            type: dir
                            path: %s
                            disable: true
                        """.formatted(dir.resolve("images"), dir.resolve("off")))
                .lockDirectory(dir.resolve("locks"))
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    @Test
    void importMetadataReadsAnOvfAndRefusesAHostileOne() throws IOException {
        try (VsmStorage vsm = vsm()) {
            vsm.status(StatusQuery.all()); // makes the storage's directories
            Path importDir = dir.resolve("images/import");
            run(
                    "qemu-img",
                    "create",
                    "-q",
                    "-f",
                    "qcow2",
                    importDir.resolve("lynx.qcow2").toString(),
                    "2M");
            Files.writeString(importDir.resolve("lynx.ovf"), """
                    <Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
                        xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">
                      <References><File ovf:href="lynx.qcow2" ovf:id="f"/></References>
                      <DiskSection><Disk ovf:diskId="d" ovf:fileRef="f"/></DiskSection>
                      <VirtualSystem ovf:id="lynx"><Name>lynx one</Name>
                        <VirtualHardwareSection>
                          <Item><rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType><rasd:VirtualQuantity>2</rasd:VirtualQuantity></Item>
                          <Item><rasd:InstanceID>2</rasd:InstanceID><rasd:ResourceType>5</rasd:ResourceType></Item>
                          <Item><rasd:AddressOnParent>0</rasd:AddressOnParent><rasd:HostResource>ovf:/disk/d</rasd:HostResource>
                            <rasd:InstanceID>3</rasd:InstanceID><rasd:Parent>2</rasd:Parent><rasd:ResourceType>17</rasd:ResourceType></Item>
                        </VirtualHardwareSection>
                      </VirtualSystem>
                    </Envelope>
                    """);
            dev.vsm.spi.ImportMetadata m = vsm.importMetadata(VolumeId.parse("images:import/lynx.ovf"));
            assertThat(m.source()).isEqualTo("import/lynx.ovf");
            assertThat(m.createArgs())
                    .containsEntry("name", "lynx-one")
                    .containsEntry("cores", "2")
                    .containsEntry("memory", "")
                    .containsEntry("boot", "order=ide0");
            assertThat(m.disks().get("ide0").volid()).hasToString("images:import/lynx.qcow2");
            assertThat(m.disks().get("ide0").size().getAsLong())
                    .as("the image's own size")
                    .isEqualTo(2L << 20);

            Files.writeString(
                    importDir.resolve("xxe.ovf"), "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>");
            badInput(
                    () -> vsm.importMetadata(VolumeId.parse("images:import/xxe.ovf")),
                    "refusing OVF 'images:import/xxe.ovf': it has a document type declaration (<!DOCTYPE ...>): "
                            + "entities and DTDs are not accepted");
        }
    }

    @Test
    void aVolumeFromAllocationToFree() throws IOException {
        try (VsmStorage vsm = vsm()) {
            assertThat(vsm.status(StatusQuery.all()))
                    .extracting(StorageState::storage, StorageState::enabled, StorageState::active)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("images", true, true),
                            org.assertj.core.groups.Tuple.tuple("off", false, false));
            assertThat(vsm.status(StatusQuery.all().content(Set.of(ContentType.IMAGES))))
                    .extracting(StorageState::storage)
                    .containsExactly("images");

            // the name's ending sets the format, as for vsm alloc
            VolumeId disk = vsm.alloc(NewVolume.of("images", 100, 4 * MIB_KIB).name("vm-100-disk-0.qcow2"));
            assertThat(disk).hasToString("images:100/vm-100-disk-0.qcow2");
            assertThat(vsm.list(ListQuery.of("images").vmid(100)))
                    .extracting(VolumeInfo::volid)
                    .containsExactly(disk.toString());
            assertThat(vsm.path(disk)).isEqualTo(dir.resolve("images/images/100/vm-100-disk-0.qcow2"));

            assertThat(vsm.resize(Resize.by(disk, 1 << 20))).isEqualTo(5L << 20);
            vsm.snapshot(Snapshot.of(disk, "before"));
            VolumeDetails info = vsm.info(disk);
            assertThat(info.format()).isEqualTo("qcow2");
            assertThat(info.size()).isEqualTo(5L << 20);
            assertThat(info.snapshots()).containsExactly("before");
            assertThat(info.features()).contains(Feature.SNAPSHOT);
            assertThat(info.vmid()).isEqualTo(100);
            vsm.rollback(Snapshot.of(disk, "before"));
            vsm.deleteSnapshot(Snapshot.of(disk, "before"));
            assertThat(vsm.info(disk).snapshots()).isEmpty();

            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            assertThat(vsm.export(
                            Export.of(disk, StreamFormat.QCOW2_SIZE, stream).withSnapshots(true)))
                    .isPositive();
            Path file = dir.resolve("copy.qcow2");
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(stream.toByteArray(), 8, stream.size() - 8);
            }
            VolumeId imported =
                    vsm.importImage(ImportImage.of("images", 101, file).format(VolumeFormat.RAW));
            assertThat(imported).hasToString("images:101/vm-101-disk-0.raw");
            assertThat(vsm.info(imported).size()).isEqualTo(5L << 20);

            VolumeId base = vsm.createBase(CreateBase.of(disk));
            VolumeId clone = vsm.clone(Clone.of(base, 102));
            assertThat(vsm.info(clone).backing()).isEqualTo(base);
            assertThat(vsm.info(base).base()).isTrue();
            assertThatThrownBy(() -> vsm.free(base))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("still in use by linked clones");
            vsm.free(clone);
            vsm.free(base);
            vsm.free(imported);
            assertThat(vsm.list(ListQuery.of("images").content(ContentType.IMAGES)))
                    .isEmpty();
        }
    }

    @Test
    void whatTheCommandLineRefusesIsRefused() {
        try (VsmStorage vsm = vsm()) {
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 7, MIB_KIB)),
                    "vmid: value does not look like a valid VM ID: '7' (expected 100 to 999999999)");
            badInput(() -> vsm.alloc(NewVolume.of("images", 100, 0)), "size: must be greater than 0, got 0 KiB");
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 100, MIB_KIB)
                            .name("vm-100-disk-0.raw")
                            .format(VolumeFormat.QCOW2)),
                    "format: different storage formats (qcow2 != raw)");
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 100, MIB_KIB).name("vm-101-disk-0.raw")),
                    "illegal name 'vm-101-disk-0.raw' - should be 'vm-100-*'");
            badInput(() -> vsm.alloc(NewVolume.of("off", 100, MIB_KIB)), "storage 'off' is disabled");
            badInput(
                    () -> vsm.status(StatusQuery.all().target("no node!")),
                    "target: invalid format - value does not look like a valid node name: 'no node!'");
            badInput(
                    () -> vsm.status(StatusQuery.all().storage("off").content(Set.of(ContentType.IMAGES))),
                    "storage: No such storage. ('off' is disabled here)");
            badInput(
                    () -> vsm.clone(Clone.of(VolumeId.parse("images:100/base-100-disk-0.raw"), 99)),
                    "vmid: value does not look like a valid VM ID: '99' (expected 100 to 999999999)");
        }
        assertThat(dir.resolve("images/images")).doesNotExist();
    }

    private static void run(String... argv) throws IOException {
        try {
            Process p = new ProcessBuilder(argv).inheritIO().start();
            assertThat(p.waitFor()).as(String.join(" ", argv)).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void badInput(ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOf(StorageException.class)
                .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                .hasMessage(message);
    }
}
