package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a succeeding command says beyond its result: nothing, unless {@code --verbose}. What lvm2
 * warns on stderr while succeeding is logged at DEBUG, so only with {@code --verbose}; and with
 * it the command run is logged.
 */
class LazyStartTest {
    @TempDir
    Path sandbox;

    /**
     * What lvm2 says on stderr while succeeding is for {@code --verbose} only: an LVM command whose
     * lvm2 warns (here about a setting it does not know) says nothing of it without it, and with
     * it the warning is logged.
     */
    @Test
    void anLvmCommandWhoseLvm2WarnsSaysItOnlyWhenVerbose() throws IOException {
        Path lvmSystemDir = Files.createDirectories(sandbox.resolve("lvm"));
        Files.writeString(lvmSystemDir.resolve("lvm.conf"), "global {\n    no_such_setting = 1\n}\n");
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).processes().env("LVM_SYSTEM_DIR", lvmSystemDir.toString());

        assertThat(vsm.run("scan", "lvm").ok().err())
                .as("stderr without --verbose")
                .isEmpty();
        assertThat(vsm.run("--verbose", "scan", "lvm").ok().err())
                .contains("DEBUG")
                .contains("vgs: Configuration setting \"global/no_such_setting\" unknown.");
    }

    @Test
    void allocLogsTheCommandItRunsOnlyWhenVerbose() {
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).processes();
        assertThat(vsm.run("alloc", "local", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2")
                        .ok()
                        .err())
                .as("stderr without --verbose")
                .isEmpty();
        Vsm.Result result = vsm.run(
                        "--verbose", "alloc", "local", "100", "vm-100-disk-1.qcow2", "1M", "--format", "qcow2")
                .ok();
        assertThat(result.err()).contains("DEBUG").contains("run: ").contains("qemu-img create");
    }
}
