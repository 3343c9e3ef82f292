package dev.vsm.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.vsm.env.Environment;
import dev.vsm.spi.Command;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class ProcessCommandRunnerTest {
    private final List<String> out = new ArrayList<>();
    private final Console console = new Console() {
        @Override
        public void info(String line) {
            out.add(line);
        }

        @Override
        public void warn(String line) {
            out.add("WARN " + line);
        }
    };

    @Test
    void runsArgvWithoutAShell(@TempDir Path dir) throws Exception {
        Path target = dir.resolve("a b; rm -rf x");
        var r = new ProcessCommandRunner(false, console).run(Command.of("touch", target.toString()));
        assertThat(r.exitCode()).isZero();
        assertThat(Files.exists(target)).isTrue();
    }

    @Test
    void reportsTheLastStderrLineAfterThePrefix() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.query(Command.of("sh", "-c", "echo first >&2; echo 'real cause' >&2; exit 3")
                        .withErrorPrefix("unable to create image")))
                .isInstanceOf(StorageException.class)
                .hasMessage("unable to create image: real cause");
        assertThatThrownBy(() -> runner.query(Command.of("false"))).hasMessage("command 'false' failed: exit code 1");
    }

    /**
     * What a succeeding command says on stderr (lvm2's warnings) is logged at DEBUG, a line at a
     * time under the tool's name; with DEBUG off (vsm's default: WARN) it is not.
     */
    @Test
    void logsTheStderrOfASucceedingCommandAtDebug() {
        Logger logger = (Logger) LoggerFactory.getLogger(ProcessCommandRunner.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        Level level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        logger.setAdditive(false); // into the list, not onto the build's console
        Command warning = Command.of(
                "sh", "-c", "echo '  WARNING: Activation disabled.' >&2; echo >&2; echo '  vg0' >&2; echo report");
        try {
            var runner = new ProcessCommandRunner(false, console);
            assertThat(runner.query(warning).stdout()).isEqualTo("report\n");
            assertThat(events.list)
                    .filteredOn(
                            e -> e.getLevel() == Level.DEBUG && !e.getMessage().startsWith("run: "))
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("sh: WARNING: Activation disabled.", "sh: vg0");

            events.list.clear();
            logger.setLevel(Level.WARN);
            assertThat(runner.query(warning).stdout()).isEqualTo("report\n");
            assertThat(events.list).isEmpty();
        } finally {
            logger.setLevel(level);
            logger.setAdditive(true);
            logger.detachAppender(events);
        }
    }

    /** lvm2 says why before its last line: the whole stderr is the cause, which {@code --verbose} prints. */
    @Test
    void keepsTheWholeStderrAsTheCause() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.run(Command.of(
                                "sh",
                                "-c",
                                "echo '  Logical volume vg/x in use.' >&2; "
                                        + "echo '  Cannot deactivate logical volume vg/x.' >&2; exit 5")
                        .withErrorPrefix("lvremove 'vg/x' error")))
                .hasMessage("lvremove 'vg/x' error: Cannot deactivate logical volume vg/x.")
                .cause()
                .hasMessage("stderr of sh:\n  Logical volume vg/x in use.\n  Cannot deactivate logical volume vg/x.");
        assertThatThrownBy(() -> runner.query(Command.of("false"))).hasNoCause();
    }

    /** lvm2 with metadata backups off warns after its error: the error is what failed. */
    @Test
    void reportsTheLastLineThatIsNotAWarning() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.query(Command.of(
                                "sh",
                                "-c",
                                "echo '  WARNING: Activation disabled.' >&2; "
                                        + "echo '  Failed to update pool vg/data.' >&2; echo '  WARNING: This metadata update is NOT backed up.' >&2; exit 5")
                        .withErrorPrefix("lvremove 'vg/x' error")))
                .hasMessage("lvremove 'vg/x' error: Failed to update pool vg/data.");
        assertThatThrownBy(() -> runner.query(Command.of("sh", "-c", "echo 'WARNING: only this' >&2; exit 5")))
                .hasMessageEndingWith("failed: exit code 5 - WARNING: only this");
    }

    /** lvm2 points at its help after an error in what it was asked: the error before it is what failed (lvm2's words, captured). */
    @Test
    void reportsLvmsReasonNotItsPointerToTheHelp() {
        var runner = new ProcessCommandRunner(false, console);
        String stderr =
                "  /dev/mapper/control: open failed: No such device\n  Failure to communicate with kernel device-mapper driver.\n"
                        + "  striped: Required device-mapper target(s) not detected in your kernel.\n  Run `lvcreate --help' for more information.\n";
        assertThatThrownBy(() -> runner.query(Command.of("sh", "-c", "printf '%s' \"$0\" >&2; exit 3", stderr)
                        .withErrorPrefix("lvcreate 'vg/vm-100-disk-0' error")))
                .hasMessage(
                        "lvcreate 'vg/vm-100-disk-0' error: striped: Required device-mapper target(s) not detected in your kernel.");
    }

    @Test
    void timesOut() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.query(Command.of("sleep", "30").withTimeout(Duration.ofMillis(300))))
                .hasMessage("command 'sleep 30' failed: got timeout");
    }

    @Test
    void aMissingProgramIsAClearFailure() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.query(Command.of("/nonexistent/qemu-img", "info")))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("command '/nonexistent/qemu-img info' failed: ");
    }

    @Test
    void dryRunPrintsChangesAndStillRunsQueries(@TempDir Path dir) {
        var runner = new ProcessCommandRunner(true, console);
        Path target = dir.resolve("it's");
        runner.run(Command.of("touch", target.toString()).inDirectory(dir));
        assertThat(Files.exists(target)).isFalse();
        assertThat(out).containsExactly("+ cd " + dir + " && touch '" + dir + "/it'\\''s'");
        assertThat(runner.query(Command.of("echo", "hi")).stdout()).isEqualTo("hi\n");
    }

    @Test
    void extraEnvironmentReachesTheCommand() {
        var runner = new ProcessCommandRunner(false, console, java.util.Map.of("LVM_SYSTEM_DIR", "/tmp/vsm-test-lvm"));
        assertThat(runner.query(Command.of("/bin/sh", "-c", "echo $LVM_SYSTEM_DIR"))
                        .stdout())
                .isEqualTo("/tmp/vsm-test-lvm\n");
    }

    /** An environment given by an embedder is the commands' whole environment (with vsm's PATH and LC_ALL). */
    @Test
    void aGivenEnvironmentIsTheCommandsWholeEnvironment() {
        var runner =
                new ProcessCommandRunner(false, console, Environment.of(java.util.Map.of("ONLY", "this")), () -> {});
        assertThat(runner.query(Command.of("/bin/sh", "-c", "echo $ONLY ${HOME:-no-home} $LC_ALL"))
                        .stdout())
                .isEqualTo("this no-home C\n");
    }
}
