package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.Vsm;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm list} reads qcow2 headers in Java; {@code VSM_IMAGE_INFO=qemu-img} runs
 * {@code qemu-img info} per image as pve does. Both paths list the same tree identically.
 */
class ListingTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path store;

    @BeforeEach
    void setUp() {
        vsm = new Vsm(sandbox);
        store = sandbox.resolve("store");
        vsm.run("add", "dir", "st", "--path", store.toString(), "--content", "images")
                .ok();
    }

    @AfterEach
    void release() {
        vsm.releaseImmutable();
    }

    /**
     * A tree of bases, linked clones (qcow2 and raw bases), plain images of each format and
     * preallocation, and images whose clusters were written: every field of every entry is the
     * same on both paths, allocated bytes included (both are st_blocks * 512 of the same unchanged
     * files; they would differ only if a file changed between the two listings).
     */
    @Test
    void nativeAndQemuImgListingsAreIdentical() throws Exception {
        vsm.run("alloc", "st", "100", "", "64M", "--format", "qcow2").ok();
        vsm.run("create-base", "st:100/vm-100-disk-0.qcow2").ok();
        vsm.run("alloc", "st", "100", "vm-100-disk-1.raw", "64M", "--format", "raw")
                .ok();
        vsm.run("create-base", "st:100/vm-100-disk-1.raw").ok();
        vsm.run("set", "st", "--qcow2-subclusters", "on").ok();
        vsm.run("alloc", "st", "200", "", "1T", "--format", "qcow2").ok();
        vsm.run("set", "st", "--qcow2-subclusters", "off", "--qcow2-cluster-size", "2M")
                .ok();
        vsm.run("alloc", "st", "200", "", "3G", "--format", "qcow2", "--preallocation", "off")
                .ok();
        vsm.run("set", "st", "--qcow2-subclusters", "auto", "--delete", "qcow2-cluster-size")
                .ok();
        vsm.run("alloc", "st", "200", "", "10M", "--format", "raw", "--preallocation", "full")
                .ok();
        vsm.run("alloc", "st", "200", "", "1M", "--format", "vmdk").ok();
        for (int vmid = 101; vmid <= 110; vmid++) {
            vsm.run("clone", "st:100/base-100-disk-0.qcow2", Integer.toString(vmid))
                    .ok();
            vsm.run("clone", "st:100/base-100-disk-1.raw", Integer.toString(vmid))
                    .ok();
        }
        qemuIo(store.resolve("images/101/vm-101-disk-0.qcow2"), "write -P 0x5a 0 3M");
        qemuIo(store.resolve("images/200/vm-200-disk-0.qcow2"), "write -P 0x5a 1G 64k");

        JsonNode fast = vsm.run("list", "st", "--output-format", "json").ok().json();
        List<JsonNode> fastInfo = infos();
        vsm.env("VSM_IMAGE_INFO", "qemu-img");
        JsonNode slow = vsm.run("list", "st", "--output-format", "json").ok().json();
        assertThat(fast).hasSize(2 + 4 + 20);
        assertThat(fast).isEqualTo(slow);
        assertThat(fields(fast, "parent")).filteredOn(p -> !p.isEmpty()).hasSize(20);
        assertThat(fields(fast, "format")).contains("qcow2", "raw", "vmdk");
        // what list does not show (cluster size, extended L2, backing format): vsm info of one of each kind
        assertThat(fastInfo).isEqualTo(infos());
        assertThat(fastInfo).extracting(i -> i.path("cluster-size").asInt()).contains(65536, 131072, 2 << 20);
        assertThat(fastInfo).extracting(i -> i.path("extended-l2").asBoolean()).contains(true, false);
        assertThat(fastInfo).extracting(i -> i.path("backing-format").asText()).contains("qcow2", "raw");
    }

    /** A broken image is reported on stderr; the listing shows the others. */
    @Test
    void aHostileHeaderIsAWarningAndTheListingGoesOn() throws Exception {
        vsm.run("alloc", "st", "100", "", "1G", "--format", "qcow2").ok();
        vsm.run("alloc", "st", "100", "", "1G", "--format", "qcow2").ok();
        Path broken = store.resolve("images/100/vm-100-disk-0.qcow2");
        try (RandomAccessFile f = new RandomAccessFile(broken.toFile(), "rw")) {
            f.seek(20);
            f.writeInt(31); // cluster_bits
        }
        Vsm.Result r = vsm.run("list", "st", "--output-format", "json").ok();
        assertThat(fields(r.json(), "volid")).containsExactly("st:100/vm-100-disk-1.qcow2");
        assertThat(r.err()).isEqualTo("invalid qcow2 image '" + broken + "': unsupported cluster size: 2^31\n");
    }

    /** The image-opts fragment of `vsm info` is ready for qemu: qemu-img opens the image with it. */
    @Test
    void infoGivesImageOptsThatQemuAccepts() throws Exception {
        vsm.run("alloc", "st", "100", "", "1T", "--format", "qcow2").ok();
        JsonNode info = vsm.run("info", "st:100/vm-100-disk-0.qcow2", "--output-format", "json")
                .ok()
                .json();
        String opts = info.get("image-opts").asText();
        Path image = store.resolve("images/100/vm-100-disk-0.qcow2");
        assertThat(opts)
                .isEqualTo("driver=qcow2,file.driver=file,file.filename=" + image + ",l2-cache-size=" + (128L << 20));
        Process p = new ProcessBuilder("qemu-img", "info", "--output=json", "--image-opts", opts)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("\"virtual-size\": 1099511627776");
        assertThat(vsm.run("info", "st:100/vm-100-disk-0.qcow2").ok().out()).contains("image-opts: " + opts + "\n");
    }

    /** One volume of each kind in the tree of {@link #nativeAndQemuImgListingsAreIdentical}. */
    private static final List<String> ONE_OF_EACH = List.of(
            "st:100/base-100-disk-0.qcow2",
            "st:100/base-100-disk-1.raw",
            "st:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2",
            "st:100/base-100-disk-1.raw/101/vm-101-disk-1.qcow2",
            "st:200/vm-200-disk-0.qcow2",
            "st:200/vm-200-disk-1.qcow2",
            "st:200/vm-200-disk-2.raw",
            "st:200/vm-200-disk-3.vmdk");

    private List<JsonNode> infos() {
        List<JsonNode> found = new ArrayList<>();
        for (String volid : ONE_OF_EACH) {
            found.add(vsm.run("info", volid, "--output-format", "json").ok().json());
        }
        return found;
    }

    private static List<String> fields(JsonNode list, String field) {
        List<String> values = new ArrayList<>();
        list.forEach(e -> values.add(e.path(field).asText("")));
        return values;
    }

    private static void qemuIo(Path image, String command) throws Exception {
        Process p = new ProcessBuilder("qemu-io", "-f", "qcow2", "-c", command, image.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(Files.exists(image)).isTrue();
    }
}
