package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cli/vsm} starts vsm from the class-data sharing archive the build dumped (on JDK 25 and
 * later, from the ahead-of-time cache it makes on its first run). The archive is a contract
 * between {@code cli/pom.xml}, which names it after the java that made it, and the launcher,
 * which maps it only under that java: a name the two disagree on, or an archive the JVM rejects,
 * would leave every command without any archive, about 90 ms slower ({@code t/bench/startup.sh}),
 * and nothing else would notice. The JVM's {@code
 * -XX:+PrintSharedArchiveAndExit} lists the classes of the archive it mapped and says whether it
 * passed validation.
 */
class StartUpArchiveTest {
    @TempDir
    Path sandbox;

    @Test
    void theLauncherMapsAValidArchiveOfVsmsClasses() {
        Vsm vsm = new Vsm(sandbox.resolve("vsm"))
                .processes()
                .env("VSM_JAVA_OPTS", "-XX:+UseG1GC -Xmx1g -XX:+PrintSharedArchiveAndExit");
        String listing = vsm.run("status").ok().out();
        assertThat(listing)
                .as("what the JVM says of the archive cli/vsm gave it")
                .contains("archive is valid")
                .contains(" dev.vsm.cli.Main ", " picocli.CommandLine ", " dev.vsm.plugin.dir.DirPlugin ")
                .as("what a real alloc loads, trained with a lock directory of the training's own")
                .contains(" dev.vsm.lock.FileLocks$Acquisition ", " dev.vsm.files.PartialImages ");
    }
}
