package dev.vsm.plugin.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.Operation;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageException.Kind;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lvm storage on real lvm2 (a VG on a loop device): allocation, numbering, listing, status, resize. */
@RootTest
class LvmStorageTest {
    private static final long MIB = 1024 * 1024;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    private TestLvmStorage san(Map<String, Object> properties) {
        return TestLvmStorage.on(vg, null, properties);
    }

    @Test
    void allocRunsPvesLvcreateAndTagsTheOwner() {
        TestLvmStorage t = san(Map.of());
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096)))
                .isEqualTo("vm-100-disk-0");
        assertThat(t.ran("/sbin/lvcreate"))
                .containsExactly(List.of(
                        "/sbin/lvcreate",
                        "-aly",
                        "-Wy",
                        "--yes",
                        "--size",
                        "4096k",
                        "--name",
                        "vm-100-disk-0",
                        "--setautoactivation",
                        "n",
                        "--addtag",
                        "pve-vm-100",
                        vg.name()));
        assertThat(vg.tags("vm-100-disk-0")).containsExactly("pve-vm-100");
        assertThat(vg.lvSize("vm-100-disk-0")).contains(4 * MIB);
        assertThat(t.storage.allocImage(AllocRequest.of(100, "vm-100-cloudinit", VolumeFormat.RAW, 4096)))
                .isEqualTo("vm-100-cloudinit");
        assertThat(vg.lvNames()).containsExactly("vm-100-cloudinit", "vm-100-disk-0");
        assertThat(t.console.warnings()).isEmpty();
    }

    @Test
    void numbersCountEveryLvOfTheGroupIncludingDelOnes() {
        vg.createLv("del-vm-100-disk-0", 4);
        vg.createLv("vm-100-disk-1", 4);
        vg.createLv("base-100-disk-2", 4);
        vg.createLv("vm-101-disk-3", 4);
        TestLvmStorage t = san(Map.of());
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 1024)))
                .isEqualTo("vm-100-disk-3");
        assertThat(t.storage.allocImage(AllocRequest.of(101, null, VolumeFormat.RAW, 1024)))
                .isEqualTo("vm-101-disk-0");
        assertThat(t.ran("/sbin/lvs"))
                .allSatisfy(argv -> assertThat(argv).last().isEqualTo(vg.name()));
    }

    @Test
    void notEnoughSpaceIsRefusedBeforeAnythingIsCreatedAndSaysWhatIsFree() {
        TestLvmStorage t = san(Map.of());
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 61 * 1024)))
                .isInstanceOf(StorageException.class)
                .hasMessage("storage 'san': not enough free space in volume group '" + vg.name()
                        + "' (63963136 bytes requested, 62914560 bytes free)")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(Kind.FAILED);
        assertThat(t.ran("/sbin/lvcreate")).isEmpty();
        assertThat(vg.lvNames()).isEmpty();
        // exactly what is free fits (bytes compared with bytes)
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 60 * 1024)))
                .isEqualTo("vm-100-disk-0");
        assertThat(vg.freeBytes()).isZero();
    }

    @Test
    void badNamesAndFormatsAreRefusedBeforeLvm2Runs() {
        TestLvmStorage t = san(Map.of());
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, "vm-100 disk", VolumeFormat.RAW, 1024)),
                "lvm name 'vm-100 disk' contains illegal characters");
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, "disk-0", VolumeFormat.RAW, 1024)),
                "unable to parse lvm volume name 'disk-0'");
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, "vm-100-disk-0.qcow2", VolumeFormat.RAW, 1024)),
                "volume name 'vm-100-disk-0.qcow2' does not match requested format 'raw' (did you mean 'vm-100-disk-0'?)");
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 1024)),
                "snapshot-as-volume-chain option need to be enabled to use qcow2 format");
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.VMDK, 1024)),
                "unsupported format 'vmdk'");
        assertThat(t.commands).isEmpty();
    }

    @Test
    void qcow2WithVolumeChainsIsAnLvSizedByQemuImgMeasureWithPvesTags() {
        TestLvmStorage t = TestLvmStorage.dryRun(vg, Map.of("snapshot-as-volume-chain", true));
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 1024)))
                .isEqualTo("vm-100-disk-0.qcow2");
        // qemu-img measure --size 1024K -O qcow2: fully-allocated 1376256 bytes
        assertThat(t.ran("/sbin/lvcreate"))
                .containsExactly(List.of(
                        "/sbin/lvcreate",
                        "-aly",
                        "-Wy",
                        "--yes",
                        "--size",
                        "1344k",
                        "--name",
                        "vm-100-disk-0.qcow2",
                        "--setautoactivation",
                        "n",
                        "--addtag",
                        "pve-vm-100",
                        "--addtag",
                        "@pve-vm-100-disk-0.qcow2",
                        vg.name()));
        assertThat(t.ran("/sbin/lvchange"))
                .containsExactly(
                        List.of(
                                "/sbin/lvchange",
                                "-aey",
                                "--select",
                                "vg_name = \"" + vg.name()
                                        + "\" && lv_name =~ '^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'"),
                        List.of(
                                "/sbin/lvchange",
                                "--refresh",
                                "--select",
                                "vg_name = \"" + vg.name()
                                        + "\" && lv_name =~ '^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'"));
        assertThat(vg.lvNames()).as("a dry run").isEmpty();
        assertThat(t.storage.operations()).contains(Operation.SNAPSHOT);
        assertThat(san(Map.of()).storage.operations()).doesNotContain(Operation.SNAPSHOT);
    }

    @Test
    void aTakenNameIsRefusedBeforeLvcreate() {
        vg.createLv("vm-100-disk-0", 4);
        TestLvmStorage t = san(Map.of());
        assertBadInput(
                () -> t.storage.allocImage(AllocRequest.of(100, "vm-100-disk-0", VolumeFormat.RAW, 1024)),
                "disk image '/dev/" + vg.name() + "/vm-100-disk-0' already exists");
        assertThat(t.ran("/sbin/lvcreate")).isEmpty();
    }

    @Test
    void aMissingGroupIsAnInactiveStorageThatCannotAllocate() {
        TestLvmStorage t = TestLvmStorage.on(vg, null, Map.of("vgname", "nosuchvg"));
        t.storage.activate();
        assertThat(t.ran("/sbin/vgscan")).hasSize(1);
        assertThat(t.console.warnings())
                .allSatisfy(w -> assertThat(w)
                        .startsWith("storage 'san': volume group 'nosuchvg' not found, and vgscan failed: "));
        assertThat(t.storage.status()).isEqualTo(StorageStatus.INACTIVE);
        assertThat(t.storage.listImages(null)).isEmpty();
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 1024)))
                .hasMessage("no such volume group 'nosuchvg' (storage 'san')");
        assertThat(t.ran("/sbin/lvcreate")).isEmpty();
    }

    @Test
    void statusFromVgs() {
        TestLvmStorage t = san(Map.of());
        t.storage.activate();
        assertThat(t.ran("/sbin/vgscan")).isEmpty();
        assertThat(t.storage.status()).isEqualTo(StorageStatus.of(60 * MIB, 0, 60 * MIB, true));
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 8192));
        assertThat(t.storage.status()).isEqualTo(StorageStatus.of(60 * MIB, 8 * MIB, 52 * MIB, true));
    }

    @Test
    void listShowsVmVolumesOnly() {
        TestLvmStorage t = san(Map.of());
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        t.storage.allocImage(AllocRequest.of(101, null, VolumeFormat.RAW, 8192));
        vg.createLv("vm-102-disk-0", 4); // not tagged
        vg.createLv("del-vm-100-disk-5", 4);
        vg.createLv("base-100-disk-6", 4);
        vg.createLv("root", 4);
        int before = t.ran("/sbin/lvs").size();
        List<VolumeInfo> all = t.storage.listImages(null);
        assertThat(t.ran("/sbin/lvs")).hasSize(before + 1);
        assertThat(t.ran("/sbin/lvs").get(before)).doesNotContain(vg.name()); // pve lists every VG once
        assertThat(all)
                .extracting(VolumeInfo::volid)
                .containsExactlyInAnyOrder("san:vm-100-disk-0", "san:vm-101-disk-0", "san:vm-102-disk-0");
        VolumeInfo v101 = all.stream().filter(v -> v.vmid() == 101).findFirst().orElseThrow();
        assertThat(v101.size()).isEqualTo(8 * MIB);
        assertThat(v101.format()).isEqualTo("raw");
        assertThat(v101.approximate()).isFalse();
        assertThat(v101.ctime()).isPositive();
        assertThat(t.storage.listImages(100)).extracting(VolumeInfo::volid).containsExactly("san:vm-100-disk-0");

        TestLvmStorage tagged = san(Map.of("tagged_only", true));
        assertThat(tagged.storage.listImages(null))
                .extracting(VolumeInfo::volid)
                .containsExactlyInAnyOrder("san:vm-100-disk-0", "san:vm-101-disk-0");
    }

    @Test
    void resizeWithLvextend() {
        TestLvmStorage t = san(Map.of());
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        var volume = t.storage.parseVolname("vm-100-disk-0");
        assertThat(t.storage.volumeSizeInfo(volume).virtualSize()).isEqualTo(4 * MIB);
        t.storage.volumeResize(volume, 12 * MIB);
        assertThat(t.ran("/sbin/lvextend"))
                .containsExactly(List.of("/sbin/lvextend", "-L", "12288k", "/dev/" + vg.name() + "/vm-100-disk-0"));
        assertThat(vg.lvSize("vm-100-disk-0")).contains(12 * MIB);
        t.storage.volumeResize(volume, 12 * MIB); // already that size: nothing to do
        assertThat(t.ran("/sbin/lvextend")).hasSize(1);
    }

    @Test
    void freeWithoutSaferemoveRemovesTheLv() {
        TestLvmStorage t = san(Map.of());
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        vg.createLv("del-vm-100-disk-3", 4); // pending removals are saferemove's business
        String uuid = vg.uuid("vm-100-disk-0");
        assertThat(t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0"))).isEmpty();
        assertThat(t.ran("/sbin/lvremove"))
                .containsExactly(
                        List.of("/sbin/lvremove", "-f", vg.name() + "/vm-100-disk-0", "--select", "lv_uuid=" + uuid));
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-3");
        assertBadInput(
                () -> t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0")),
                "volume 'san:vm-100-disk-0' does not exist");
    }

    @Test
    void pathsAndWhatPlainLvmCannotDo() {
        TestLvmStorage t = san(Map.of());
        var volume = t.storage.parseVolname("vm-100-disk-0");
        assertThat(t.storage.path(volume)).hasToString("/dev/" + vg.name() + "/vm-100-disk-0");
        // plain LVM lists neither operation: the SPI's defaults refuse them, as the engine does before calling
        assertThat(t.storage.operations()).doesNotContain(Operation.CREATE_BASE, Operation.CLONE);
        assertBadInput(() -> t.storage.createBase(volume), "storage 'san' (type lvm) cannot create base volumes");
        assertBadInput(() -> t.storage.cloneImage(volume, 101), "storage 'san' (type lvm) cannot clone volumes");
        assertThat(t.commands).isEmpty();
    }

    @Test
    void volumeActivationAsPve() {
        TestLvmStorage t = san(Map.of());
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        var volume = t.storage.parseVolname("vm-100-disk-0");
        t.storage.activateVolume(volume);
        String path = "/dev/" + vg.name() + "/vm-100-disk-0";
        assertThat(t.ran("/sbin/lvchange"))
                .containsExactly(List.of("/sbin/lvchange", "-aey", path), List.of("/sbin/lvchange", "--refresh", path));
        t.storage.deactivateVolume(volume); // no device node here: nothing to deactivate (pve's -b test)
        assertThat(t.ran("/sbin/lvchange")).hasSize(2);
    }

    static void assertBadInput(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(Kind.BAD_INPUT);
    }
}
