package dev.vsm.example.quotadir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.Console;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A quota-dir storage on the framework's real context: real files, real qemu-img. */
class QuotaDirStorageTest {
    private static final Console QUIET = new Console() {
        @Override
        public void info(String line) {}

        @Override
        public void warn(String line) {}
    };

    @TempDir
    Path root;

    private Storage storage;
    private DefaultStorageContext context;

    @BeforeEach
    void setUp() {
        StorageConfig config =
                new StorageConfig("qd", QuotaDirPlugin.TYPE, Map.of("path", root.toString(), "vm-quota", "100M"));
        context = DefaultStorageContext.builder(QUIET).build();
        storage = new QuotaDirPlugin().open(config, context);
        storage.activate();
    }

    private String alloc(int vmid, String format, long mib) {
        return storage.allocImage(AllocRequest.of(vmid, null, VolumeFormat.parse(format), mib * 1024));
    }

    @Test
    void disksOfOneVmAddUpToTheQuotaAndNoFurther() {
        assertThat(alloc(100, "qcow2", 60)).isEqualTo("100/vm-100-disk-0.qcow2");
        assertThat(alloc(100, "raw", 40)).isEqualTo("100/vm-100-disk-1.raw");
        assertThatThrownBy(() -> alloc(100, "raw", 1))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(
                        "storage 'qd': VM 100 would use 101 MiB of its 100 MiB quota (100 MiB in 2 other disk(s) + 1 MiB)"
                                + " - free a disk of VM 100, or raise the quota with 'vsm set qd --vm-quota <size>'");
        assertThat(root.resolve("images/100")).isDirectoryContaining(p -> true);
        assertThat(root.resolve("images/100/vm-100-disk-2.raw")).doesNotExist();
        assertThat(alloc(101, "raw", 100)).as("the quota is per VM").isEqualTo("101/vm-101-disk-0.raw");
    }

    @Test
    void listAndFree() {
        alloc(100, "qcow2", 10);
        alloc(101, "raw", 20);
        assertThat(storage.listImages(null))
                .extracting(VolumeInfo::volid, VolumeInfo::size, VolumeInfo::vmid)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("qd:100/vm-100-disk-0.qcow2", 10L << 20, 100),
                        org.assertj.core.groups.Tuple.tuple("qd:101/vm-101-disk-0.raw", 20L << 20, 101));
        assertThat(storage.listImages(101)).hasSize(1);
        storage.freeImage(storage.parseVolname("101/vm-101-disk-0.raw"));
        assertThat(root.resolve("images/101")).doesNotExist();
        assertThat(storage.listImages(null))
                .extracting(VolumeInfo::volid)
                .containsExactly("qd:100/vm-100-disk-0.qcow2");
        assertThatThrownBy(() -> storage.freeImage(storage.parseVolname("101/vm-101-disk-0.raw")))
                .hasMessageContaining("does not exist");
    }

    @Test
    void resizeCountsTheOtherDisksAndTheNewSize() {
        alloc(100, "qcow2", 60);
        alloc(100, "raw", 20);
        var disk = storage.parseVolname("100/vm-100-disk-0.qcow2");
        storage.volumeResize(disk, 80L << 20);
        assertThat(storage.volumeSizeInfo(disk).virtualSize()).isEqualTo(80L << 20);
        assertThatThrownBy(() -> storage.volumeResize(disk, (80L << 20) + 1024))
                .hasMessageStartingWith(
                        "storage 'qd': VM 100 would use 102401 KiB of its 100 MiB quota (20 MiB in 1 other disk(s) + 81921 KiB)");
        assertThat(storage.volumeSizeInfo(disk).virtualSize()).isEqualTo(80L << 20);
    }

    @Test
    void holdsVmDisksOnly() throws Exception {
        assertThatThrownBy(() -> storage.parseVolname("iso/debian.iso"))
                .hasMessageContaining("holds raw and qcow2 VM disks only");
        assertThatThrownBy(() -> storage.parseVolname("100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2"))
                .hasMessageContaining("holds raw and qcow2 VM disks only");
        Files.createDirectories(root.resolve("images/100"));
        Files.writeString(root.resolve("images/100/notes.txt"), "not a disk");
        assertThat(storage.listImages(100)).isEmpty();
    }

    @Test
    void allocationHasDirsCrashStory() throws Exception {
        // what a vsm killed while qemu-img wrote the disk leaves: a temporary of a process that is gone
        Path images = root.resolve("images/100");
        Files.createDirectories(images);
        Path left = images.resolve(".vm-100-disk-0.qcow2.vsm-tmp-"
                + context.nodeName().replaceAll("[^A-Za-z0-9_.]", "_") + "-999999999-0123abcd");
        Files.writeString(left, "torn");
        assertThat(storage.listImages(100)).isEmpty();
        assertThat(storage.pendingCleanup())
                .hasValueSatisfying(
                        cleanup -> assertThat(cleanup.items()).containsExactly("images/100/" + left.getFileName()));

        assertThat(alloc(100, "qcow2", 10)).isEqualTo("100/vm-100-disk-0.qcow2");
        assertThat(images)
                .as("the disk under its name, made 0640, and the leftover swept")
                .satisfies(dir -> {
                    try (var entries = Files.list(dir)) {
                        assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("vm-100-disk-0.qcow2");
                    }
                });
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(images.resolve("vm-100-disk-0.qcow2"))))
                .isEqualTo("rw-r-----");
        assertThat(storage.pendingCleanup()).isEmpty();
    }

    @Test
    void quotaSizes() {
        assertThat(Quota.parse("s", "512K").bytes()).isEqualTo(512L << 10);
        assertThat(Quota.parse("s", "10g").bytes()).isEqualTo(10L << 30);
        assertThat(Quota.parse("s", "2T").bytes()).isEqualTo(2L << 40);
        assertThatThrownBy(() -> Quota.parse("s", "10"))
                .hasMessage("storage 's': vm-quota '10' is not a size such as 10G");
        assertThatThrownBy(() -> Quota.parse("s", "9999999999999T"))
                .hasMessage("storage 's': vm-quota '9999999999999T' is too large");
        assertThat(Quota.human(1536L << 20)).isEqualTo("1536 MiB");
        assertThat(Quota.human(0)).isEqualTo("0 B");
    }
}
