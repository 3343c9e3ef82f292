package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The walk-through on the built-in default storage, checked with qemu-img's own eyes. */
class DirWalkThroughTest {
    @TempDir
    Path sandbox;

    @org.junit.jupiter.api.AfterEach
    void release() {
        new Vsm(sandbox).releaseImmutable();
    }

    @Test
    void allocListBaseCloneInfoFree() throws Exception {
        Vsm vsm = new Vsm(sandbox);
        Path images = vsm.defaultLocal().resolve("images");

        String config = Files.readString(vsm.config());
        Vsm.Result status = vsm.run("status").ok();
        assertThat(status.lines().get(0))
                .startsWith("Name ")
                .contains("Type", "Status", "Total (KiB)", "Used (KiB)", "Available (KiB)");
        assertThat(status.lines().get(1)).startsWith("local ").contains(" dir ", " active ");
        assertThat(Files.readString(vsm.config())).as("status writes no config").isEqualTo(config);

        assertThat(vsm.run("alloc", "local", "100", "", "4G", "--format", "qcow2")
                        .ok()
                        .out())
                .isEqualTo("successfully created 'local:100/vm-100-disk-0.qcow2'\n");
        Path disk = images.resolve("100/vm-100-disk-0.qcow2");
        JsonNode info = QemuImg.info(disk);
        assertThat(info.get("format").asText()).isEqualTo("qcow2");
        assertThat(info.get("virtual-size").asLong()).isEqualTo(4L << 30);
        assertThat(info.get("cluster-size").asInt())
                .as("plain qcow2 keeps qemu's default cluster")
                .isEqualTo(65536);
        assertThat(info.path("format-specific").path("data").path("extended-l2").asBoolean())
                .isFalse();

        Vsm.Result list = vsm.run("list", "local").ok();
        assertThat(list.lines()).hasSize(2);
        assertThat(list.lines().get(1)).matches("local:100/vm-100-disk-0\\.qcow2 +qcow2 +images +4294967296 100");

        assertThat(vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok().out())
                .contains("local:100/base-100-disk-0.qcow2");
        Path base = images.resolve("100/base-100-disk-0.qcow2");
        assertThat(Files.exists(base)).isTrue();
        assertThat(Files.exists(disk)).isFalse();
        assertThat(PosixFilePermissions.toString(permissions(base))).isEqualTo("r--r-----");

        assertThat(vsm.run("clone", "local:100/base-100-disk-0.qcow2", "101")
                        .ok()
                        .out())
                .contains("local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2");
        Path clone = images.resolve("101/vm-101-disk-0.qcow2");
        JsonNode cinfo = QemuImg.info(clone);
        assertThat(cinfo.get("backing-filename").asText()).isEqualTo("../100/base-100-disk-0.qcow2");
        assertThat(cinfo.get("cluster-size").asInt()).isEqualTo(128 * 1024);
        assertThat(cinfo.path("format-specific")
                        .path("data")
                        .path("extended-l2")
                        .asBoolean())
                .isTrue();

        JsonNode vinfo = vsm.run(
                        "info", "local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2", "--output-format", "json")
                .ok()
                .json();
        assertThat(vinfo.get("format").asText()).isEqualTo("qcow2");
        assertThat(vinfo.get("size").asLong()).isEqualTo(4L << 30);
        assertThat(vinfo.get("backing-volid").asText()).isEqualTo("local:100/base-100-disk-0.qcow2");
        assertThat(vinfo.get("cluster-size").asInt()).isEqualTo(131072);
        assertThat(vinfo.get("extended-l2").asBoolean()).isTrue();
        assertThat(vinfo.get("l2-cache-size").asLong()).isEqualTo((4L << 30) / 131072 * 16);

        vsm.run("free", "local:100/base-100-disk-0.qcow2")
                .badInput("base volume '100/base-100-disk-0.qcow2' is still in use by linked clones");
        assertThat(Files.exists(base)).isTrue();

        assertThat(vsm.run("free", "local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2")
                        .ok()
                        .out())
                .isEqualTo("Removed volume 'local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2'\n");
        assertThat(Files.exists(clone)).isFalse();
        vsm.run("free", "local:100/base-100-disk-0.qcow2").ok();
        assertThat(Files.exists(base)).isFalse();
        assertThat(vsm.run("list", "local").ok().lines()).hasSize(1);
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions(Path p) {
        try {
            return Files.getPosixFilePermissions(p);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
