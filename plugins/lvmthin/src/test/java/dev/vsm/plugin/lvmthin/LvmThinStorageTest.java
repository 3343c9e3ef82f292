package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.env.Environment;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageException.Kind;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RecordingConsole;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.ThinMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lvmthin storage on real lvm2: a loop-device VG whose thin pool {@code data} (32 MiB) and
 * thin volumes are written into its metadata ({@link ThinMetadata}), as this host has no
 * device-mapper. What lvm2 can do here (list, report, rename, change flags) runs for real; what
 * needs the kernel (creating and removing thin volumes and snapshots) is checked by its dry-run
 * argv, and by lvm2's own refusal when run for real.
 */
@RootTest
class LvmThinStorageTest {
    private static final long MIB = 1024 * 1024;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    private final RecordingConsole console = new RecordingConsole();

    @BeforeEach
    void pool() {
        vg.createLv("plain", 4);
        ThinMetadata.of(vg)
                .pool("data", 32)
                .pool("other", 8)
                .volume("data", "vm-100-disk-0", 16)
                .snapshot("data", "snap_vm-100-disk-0_s1", "vm-100-disk-0", 16)
                .base("data", "base-102-disk-0", 8)
                .volume("data", "vm-101-disk-0", 8)
                .volume("data", "scratch", 4)
                .volume("other", "vm-100-disk-1", 4)
                .write();
    }

    private LvmThinStorage thin(boolean dryRun, Map<String, Object> extra) {
        Map<String, Object> p = new LinkedHashMap<>(Map.of("vgname", vg.name(), "thinpool", "data"));
        p.putAll(extra);
        return new LvmThinStorage(
                new StorageConfig("thin", "lvmthin", p),
                DefaultStorageContext.builder(console)
                        .dryRun(dryRun)
                        .environment(Environment.system().with(vg.environment()))
                        .build());
    }

    private String lv(String name) {
        return vg.name() + "/" + name;
    }

    /** What a removal of the LV listed runs: by its name and UUID. */
    private String removal(String name) {
        return "/sbin/lvremove -f " + lv(name) + " --select lv_uuid=" + vg.uuid(name);
    }

    @Test
    void listsThePoolsVmAndBaseVolumesOnly() {
        List<VolumeInfo> list = thin(false, Map.of()).listImages(null);
        assertThat(list)
                .extracting(VolumeInfo::volid)
                .containsExactlyInAnyOrder("thin:base-102-disk-0", "thin:vm-100-disk-0", "thin:vm-101-disk-0");
        VolumeInfo v = list.stream()
                .filter(i -> i.volid().equals("thin:vm-100-disk-0"))
                .findFirst()
                .orElseThrow();
        assertThat(v.size()).isEqualTo(16 * MIB);
        assertThat(v.format()).isEqualTo("raw");
        assertThat(v.vmid()).isEqualTo(100);
        assertThat(v.ctime()).isPositive();
        assertThat(thin(false, Map.of()).listImages(101))
                .extracting(VolumeInfo::volid)
                .containsExactly("thin:vm-101-disk-0");
    }

    @Test
    void activationAndStatusComeFromThePool() {
        LvmThinStorage thin = thin(false, Map.of());
        // lvm2 cannot ask the kernel here: the pool's state is unknown, so it is not active until activated
        assertThat(thin.status()).isEqualTo(StorageStatus.INACTIVE);
        thin.activate();
        StorageStatus s = thin.status();
        assertThat(s.active()).isTrue();
        assertThat(s.total()).isEqualTo(32 * MIB);
        assertThat(s.used()).isZero(); // no data percent without device-mapper
        assertThat(s.avail()).isEqualTo(32 * MIB);
        assertThat(s.metadata()).isEqualTo(StorageStatus.MetadataUsage.of(0, 4 * MIB));
        assertThat(s.warnings()).isEmpty();
    }

    @Test
    void aMissingPoolFailsActivationAndIsInactive() {
        LvmThinStorage thin = thin(false, Map.of("thinpool", "nopool"));
        assertThatThrownBy(thin::activate).hasMessage("no such logical volume " + vg.name() + "/nopool");
        assertThat(thin.status()).isEqualTo(StorageStatus.INACTIVE);
        assertThat(thin(false, Map.of("thinpool", "plain")).status())
                .as("not a thin pool")
                .isEqualTo(StorageStatus.INACTIVE);
    }

    @Test
    void allocationRunsPvesArgvAndNumbersCountEveryLvOfTheGroup() {
        LvmThinStorage thin = thin(true, Map.of());
        // vm-100-disk-0 (this pool) and vm-100-disk-1 (the other pool) are taken
        assertThat(thin.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096)))
                .isEqualTo("vm-100-disk-2");
        assertThat(thin.allocImage(AllocRequest.of(102, null, VolumeFormat.RAW, 4096)))
                .isEqualTo("vm-102-disk-1");
        assertThat(thin.allocImage(AllocRequest.of(100, "vm-100-state", VolumeFormat.RAW, 1024)))
                .isEqualTo("vm-100-state");
        assertThat(console.commands())
                .containsExactly(
                        "/sbin/lvcreate -aly -V 4096k --name vm-100-disk-2 --thinpool " + lv("data"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-100-disk-2"),
                        "/sbin/lvcreate -aly -V 4096k --name vm-102-disk-1 --thinpool " + lv("data"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-102-disk-1"),
                        "/sbin/lvcreate -aly -V 1024k --name vm-100-state --thinpool " + lv("data"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-100-state"));
    }

    @Test
    void lvm2RefusesToCreateThinVolumesWithoutDeviceMapperAndSaysSo() {
        LvmThinStorage thin = thin(false, Map.of());
        assertThatThrownBy(() -> thin.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096)))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("lvcreate '" + lv("vm-100-disk-2") + "' error: ")
                .hasMessageContaining("device-mapper");
        assertThat(vg.lvNames()).doesNotContain("vm-100-disk-2");
    }

    @Test
    void badAllocationsAreRefusedBeforeLvm2Runs() {
        LvmThinStorage thin = thin(true, Map.of());
        assertBadInput(
                () -> thin.allocImage(AllocRequest.of(100, "vm-101-disk-5", VolumeFormat.RAW, 1024)),
                "illegal name 'vm-101-disk-5' - should be 'vm-100-*'");
        assertBadInput(
                () -> thin.allocImage(AllocRequest.of(100, "base-100-disk-5", VolumeFormat.RAW, 1024)),
                "illegal name 'base-100-disk-5' - should be 'vm-100-*'");
        assertBadInput(
                () -> thin.allocImage(AllocRequest.of(100, "vm-100 x", VolumeFormat.RAW, 1024)),
                "lvm name 'vm-100 x' contains illegal characters");
        assertBadInput(
                () -> thin.allocImage(AllocRequest.of(100, "vm-100-disk-0", VolumeFormat.RAW, 1024)),
                "disk image '/dev/" + vg.name() + "/vm-100-disk-0' already exists");
        assertBadInput(
                () -> thin.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 1024)),
                "unsupported format 'qcow2'");
        assertThat(console.commands()).isEmpty();
    }

    @Test
    void theOverprovisionGuardCountsEveryThinVolumeOfThePool() {
        // the pool's thin volumes: 16 + 16 (snapshot) + 8 + 8 + 4 = 52 MiB of 32 MiB; 2 x 32 = 64 MiB allowed
        LvmThinStorage thin = thin(true, Map.of("max-overprovision", 2.0));
        assertThatThrownBy(() -> thin.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 13 * 1024)))
                .isInstanceOf(StorageException.class)
                .hasMessage("storage 'thin': cannot allocate vm-100-disk-2 (13631488 bytes): the thin volumes of pool "
                        + lv("data")
                        + " would add up to 68157440 bytes (now 54525952), more than max-overprovision 2 x "
                        + "the pool size 33554432 bytes")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(Kind.FAILED);
        assertThat(console.commands()).isEmpty();
        // up to the limit is fine
        assertThat(thin.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 12 * 1024)))
                .isEqualTo("vm-100-disk-2");
        // without the option there is no limit
        assertThat(thin(true, Map.of()).allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 1024 * 1024)))
                .isEqualTo("vm-100-disk-2");
    }

    @Test
    void theGuardAppliesToClonesAndGrowthToo() {
        LvmThinStorage thin = thin(true, Map.of("max-overprovision", 1.75)); // 56 MiB allowed, 52 used
        VolumeName base = thin.parseVolname("base-102-disk-0");
        assertThatThrownBy(() -> thin.cloneImage(base, 103))
                .hasMessageStartingWith(
                        "storage 'thin': cannot clone base-102-disk-0 to vm-103-disk-0 (8388608 bytes): ")
                .hasMessageEndingWith("more than max-overprovision 1.75 x the pool size 33554432 bytes");
        VolumeName vm101 = thin.parseVolname("vm-101-disk-0");
        assertThatThrownBy(() -> thin.volumeResize(vm101, 16 * MIB))
                .hasMessageStartingWith("storage 'thin': cannot grow vm-101-disk-0 (8388608 bytes): ");
        thin.volumeResize(vm101, 12 * MIB);
        assertThat(console.commands()).containsExactly("/sbin/lvextend -L 12288k /dev/" + lv("vm-101-disk-0"));
    }

    @Test
    void snapshotsRollbackAndDeletionAsPve() {
        LvmThinStorage thin = thin(true, Map.of());
        VolumeName vm100 = thin.parseVolname("vm-100-disk-0");
        thin.volumeSnapshot(vm100, "s2");
        thin.volumeSnapshotRollback(vm100, "s1");
        thin.volumeSnapshotDelete(vm100, "s1");
        assertThat(console.commands())
                .containsExactly(
                        "/sbin/lvcreate -n snap_vm-100-disk-0_s2 -pr -s " + lv("vm-100-disk-0"),
                        removal("vm-100-disk-0"), // the LV listed, by UUID
                        "/sbin/lvcreate -kn -n vm-100-disk-0 -s " + lv("snap_vm-100-disk-0_s1"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-100-disk-0"),
                        removal("snap_vm-100-disk-0_s1"));
    }

    @Test
    void missingOrTakenSnapshotsAreBadInputAndNothingRuns() {
        LvmThinStorage thin = thin(true, Map.of());
        VolumeName vm100 = thin.parseVolname("vm-100-disk-0");
        assertBadInput(
                () -> thin.volumeSnapshot(vm100, "s1"), "snapshot 's1' of volume 'thin:vm-100-disk-0' already exists");
        assertBadInput(
                () -> thin.volumeSnapshotRollback(vm100, "nope"),
                "snapshot 'nope' of volume 'thin:vm-100-disk-0' does not exist");
        assertBadInput(
                () -> thin.volumeSnapshotDelete(vm100, "nope"),
                "snapshot 'nope' of volume 'thin:vm-100-disk-0' does not exist");
        assertBadInput(
                () -> thin.volumeSnapshot(thin.parseVolname("vm-100-disk-7"), "s1"),
                "volume 'thin:vm-100-disk-7' does not exist");
        assertThat(console.commands()).isEmpty();
    }

    @Test
    void linkedClonesOfBasesAndOfSnapshots() {
        LvmThinStorage thin = thin(true, Map.of());
        assertThat(thin.cloneImage(thin.parseVolname("base-102-disk-0"), 103)).isEqualTo("vm-103-disk-0");
        assertThat(thin.cloneImage(thin.parseVolname("vm-100-disk-0"), 100, "s1"))
                .isEqualTo("vm-100-disk-2");
        assertThat(console.commands())
                .containsExactly(
                        "/sbin/lvcreate -n vm-103-disk-0 -prw -kn -s " + lv("base-102-disk-0"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-103-disk-0"),
                        "/sbin/lvcreate -n vm-100-disk-2 -prw -kn -s " + lv("snap_vm-100-disk-0_s1"),
                        "/sbin/lvchange --setautoactivation n " + lv("vm-100-disk-2"));
        assertBadInput(
                () -> thin.cloneImage(thin.parseVolname("vm-101-disk-0"), 103),
                "clone_image only works on base images");
    }

    @Test
    void freeRemovesTheSnapshotsFirst() {
        LvmThinStorage thin = thin(true, Map.of());
        assertThat(thin.freeImage(thin.parseVolname("vm-100-disk-0"))).isEmpty();
        assertThat(console.commands()).containsExactly(removal("snap_vm-100-disk-0_s1"), removal("vm-100-disk-0"));
        assertBadInput(
                () -> thin.freeImage(thin.parseVolname("vm-100-disk-9")), "volume 'thin:vm-100-disk-9' does not exist");
    }

    @Test
    void createBaseForRealRenamesMakesReadOnlyAndSkipsActivation() {
        LvmThinStorage thin = thin(false, Map.of());
        assertThat(thin.createBase(thin.parseVolname("vm-101-disk-0"))).isEqualTo("base-101-disk-0");
        assertThat(vg.lvNames()).contains("base-101-disk-0").doesNotContain("vm-101-disk-0");
        String attr = vg.lvm("lvs", "--noheadings", "-o", "lv_attr", lv("base-101-disk-0"))
                .strip();
        assertThat(attr).startsWith("Vr").endsWith("k"); // thin volume, read-only, activation skip
        assertThat(console.warnings()).isEmpty();
        assertThat(thin.listImages(101)).extracting(VolumeInfo::volid).containsExactly("thin:base-101-disk-0");
    }

    @Test
    void createBaseIsRefusedForBasesAndVolumesWithSnapshots() {
        LvmThinStorage thin = thin(false, Map.of());
        assertBadInput(
                () -> thin.createBase(thin.parseVolname("base-102-disk-0")),
                "create_base not possible with base image");
        assertBadInput(
                () -> thin.createBase(thin.parseVolname("vm-100-disk-0")),
                "unable to create base volume - found snapshot 'snap_vm-100-disk-0_s1'");
        assertThat(vg.lvNames()).contains("vm-100-disk-0", "base-102-disk-0");
    }

    @Test
    void renameForRealMovesTheOwnerTag() {
        LvmThinStorage thin = thin(false, Map.of());
        assertThat(thin.renameVolume(thin.parseVolname("vm-101-disk-0"), 105, null))
                .isEqualTo("vm-105-disk-0");
        assertThat(vg.lvNames()).contains("vm-105-disk-0").doesNotContain("vm-101-disk-0");
        assertThat(vg.tags("vm-105-disk-0")).containsExactly("pve-vm-105");
        assertThat(thin.renameVolume(thin.parseVolname("vm-105-disk-0"), 105, "vm-105-data"))
                .isEqualTo("vm-105-data");
        assertThat(thin.listImages(105)).extracting(VolumeInfo::volid).containsExactly("thin:vm-105-data");
        assertThat(console.warnings()).isEmpty();
    }

    @Test
    void renameIsRefusedForBasesVolumesWithSnapshotsAndTakenNames() {
        LvmThinStorage thin = thin(false, Map.of());
        assertBadInput(
                () -> thin.renameVolume(thin.parseVolname("base-102-disk-0"), 105, null),
                "rename is not available for base volume 'thin:base-102-disk-0'");
        assertBadInput(
                () -> thin.renameVolume(thin.parseVolname("vm-100-disk-0"), 105, null),
                "can't rename volume 'vm-100-disk-0' - snapshot 'snap_vm-100-disk-0_s1' exists");
        assertBadInput(
                () -> thin.renameVolume(thin.parseVolname("vm-101-disk-0"), 100, "vm-100-disk-0"),
                "target volume 'vm-100-disk-0' already exists");
        assertBadInput(
                () -> thin.renameVolume(thin.parseVolname("vm-101-disk-0"), 100, "vm-104-disk-0"),
                "illegal name 'vm-104-disk-0' - should be 'vm-100-*'");
        assertThat(vg.lvNames()).contains("vm-101-disk-0", "vm-100-disk-0", "base-102-disk-0");
    }

    @Test
    void sizeInfoIsTheVirtualSize() {
        assertThat(thin(false, Map.of())
                        .volumeSizeInfo(ThinVolumeNames.parse("vm-100-disk-0"))
                        .virtualSize())
                .isEqualTo(16 * MIB);
    }

    private static void assertBadInput(Runnable r, String message) {
        assertThatThrownBy(r::run)
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(Kind.BAD_INPUT);
    }
}
