package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vsm copy} between dir storages through the real cli/vsm; copies compared with qemu-img compare. */
class CopyTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path src;
    private Path dst;
    private Path raw;

    @BeforeEach
    void setUp() throws IOException {
        src = sandbox.resolve("src");
        dst = sandbox.resolve("dst");
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  src:
                    type: dir
                    path: %s
                  dst:
                    type: dir
                    path: %s
                """.formatted(src, dst));
        raw = Images.raw(Files.createDirectories(sandbox.resolve("sources")), "disk.raw", 12, 5);
        vsm.run("import", "src", "100", raw.toString(), "--format", "qcow2", "-q")
                .ok();
    }

    @Test
    void aCopyKeepsTheFormatWhereTheTargetTakesItAndConverts() {
        Vsm.Result r =
                vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "-q").ok();
        assertThat(r.out())
                .isEqualTo("successfully copied 'src:100/vm-100-disk-0.qcow2' to 'dst:100/vm-100-disk-0.qcow2'\n");
        assertThat(Images.same(raw, "raw", dst.resolve("images/100/vm-100-disk-0.qcow2"), "qcow2"))
                .isTrue();

        assertThat(vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "--vmid", "200", "--format", "raw", "-q")
                        .ok()
                        .out())
                .isEqualTo("successfully copied 'src:100/vm-100-disk-0.qcow2' to 'dst:200/vm-200-disk-0.raw'\n");
        assertThat(Images.same(raw, "raw", dst.resolve("images/200/vm-200-disk-0.raw"), "raw"))
                .isTrue();
        assertThat(vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "--output-format", "json", "-q")
                        .ok()
                        .json()
                        .get("method")
                        .asText())
                .isEqualTo("convert");
    }

    @Test
    void aLinkedCloneIsCopiedWhole() {
        vsm.run("create-base", "src:100/vm-100-disk-0.qcow2").ok();
        vsm.run("clone", "src:100/base-100-disk-0.qcow2", "101").ok();
        vsm.run("copy", "src:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2", "dst", "-q")
                .ok();
        Path copy = dst.resolve("images/101/vm-101-disk-0.qcow2");
        assertThat(QemuImg.info(copy).has("backing-filename")).isFalse();
        assertThat(Images.same(raw, "raw", copy, "qcow2")).isTrue();
        vsm.releaseImmutable();
    }

    @Test
    void theStreamPathCopiesRawData() {
        vsm.run("import", "src", "100", raw.toString(), "-q").ok();
        var json = vsm.run(
                        "copy",
                        "src:100/vm-100-disk-1.raw",
                        "dst",
                        "--method",
                        "stream",
                        "--output-format",
                        "json",
                        "-q")
                .ok()
                .json();
        assertThat(json.get("method").asText()).isEqualTo("stream");
        assertThat(json.get("volid").asText()).isEqualTo("dst:100/vm-100-disk-0.raw");
        assertThat(Files.exists(dst.resolve("images/100/vm-100-disk-0.raw"))).isTrue();
        assertThat(Images.same(raw, "raw", dst.resolve("images/100/vm-100-disk-0.raw"), "raw"))
                .isTrue();
        vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "--method", "stream")
                .badInput(
                        "cannot copy 'src:100/vm-100-disk-0.qcow2' to storage 'dst' (type dir): it imports no images, and no "
                                + "stream format of a qcow2 volume fits both (source exports: raw+size; target imports: none)");
        assertThat(Images.files(dst.resolve("images"))).containsExactly("100");
    }

    @Test
    void badCopiesAreRefusedAndLeaveNothing() {
        Vsm.Result missing = vsm.run("copy", "src:100/vm-100-disk-9.qcow2", "dst");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).isEqualTo("failed to stat '" + src.resolve("images/100/vm-100-disk-9.qcow2") + "'\n");
        vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "nosuch").badInput("storage 'nosuch' does not exist");
        vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "--format", "subvol")
                .badInput("cannot import an image as format 'subvol'");
        vsm.run("copy", "src:100/vm-100-disk-0.qcow2", "dst", "--method", "teleport")
                .badInput("method: 'teleport' is not convert or stream");
        assertThat(Images.files(dst.resolve("images"))).isEmpty();
    }
}
