package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code vsm alloc} leaves unstarted, as the JVM's class-load log of the real jar shows:
 * logback, when nothing is logged, and the security providers, for the random part of its
 * temporary file's name. Each cost 20-35 ms of every alloc and clone ({@code t/bench/alloc.sh}).
 * An LVM command leaves logback unstarted too, also when lvm2 warns on stderr.
 * The control: with {@code --verbose} the command run is logged.
 */
class LazyStartTest {
    @TempDir
    Path sandbox;

    @Test
    void allocStartsNoLogging() throws IOException {
        Path classes = sandbox.resolve("classes.log");
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).launcher(launcherLogging(classes));
        String volume = vsm.run("alloc", "local", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2")
                .ok()
                .out();
        assertThat(volume).contains("local:100/vm-100-disk-0.qcow2");
        assertThat(Files.readString(classes))
                .as("classes 'vsm alloc' loaded")
                .contains(" dev.vsm.exec.ProcessCommandRunner ")
                .doesNotContain(" ch.qos.logback.classic.LoggerContext ");
        assertThat(vsm.defaultLocal().resolve("images/100/vm-100-disk-0.qcow2")).isRegularFile();
    }

    /**
     * What lvm2 says on stderr while succeeding is for {@code --verbose} only: an LVM command whose
     * lvm2 warns (here about a setting it does not know) makes no logger without it, and with it
     * the warning is logged.
     */
    @Test
    void anLvmCommandWhoseLvm2WarnsStartsNoLoggingUnlessVerbose() throws IOException {
        Path lvmSystemDir = Files.createDirectories(sandbox.resolve("lvm"));
        Files.writeString(lvmSystemDir.resolve("lvm.conf"), "global {\n    no_such_setting = 1\n}\n");
        Path classes = sandbox.resolve("classes.log");
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).processes().env("LVM_SYSTEM_DIR", lvmSystemDir.toString());

        vsm.launcher(launcherLogging(classes)).run("scan", "lvm").ok();
        assertThat(Files.readString(classes))
                .as("classes 'vsm scan lvm' loaded")
                .contains(" dev.vsm.lvm.Lvm ")
                .doesNotContain(" ch.qos.logback.classic.LoggerContext ");

        assertThat(vsm.launcher(Vsm.LAUNCHER)
                        .run("--verbose", "scan", "lvm")
                        .ok()
                        .err())
                .contains("DEBUG")
                .contains("vgs: Configuration setting \"global/no_such_setting\" unknown.");
    }

    @Test
    void verboseStillLogsTheCommandItRuns() {
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).processes();
        Vsm.Result result = vsm.run(
                        "--verbose", "alloc", "local", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2")
                .ok();
        assertThat(result.err()).contains("DEBUG").contains("run: ").contains("qemu-img create");
    }

    /** A launcher that runs vsm's jar with the JVM logging each class it loads to {@code log}. */
    private Path launcherLogging(Path log) throws IOException {
        Path script = sandbox.resolve("vsm-logging-classes");
        Files.writeString(
                script,
                "#!/bin/bash\nexec java -Xlog:class+load:file=" + log + " -jar "
                        + Vsm.HOME.resolve("cli/target/vsm-cli.jar") + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }
}
