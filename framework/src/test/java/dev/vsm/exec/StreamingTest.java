package dev.vsm.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.Command;
import dev.vsm.spi.Console;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.commons.exec.CommandLine;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** {@link ProcessCommandRunner#stream}, and what happens to a child when vsm is stopped. */
class StreamingTest {
    private final List<String> printed = Collections.synchronizedList(new ArrayList<>());
    private final Console console = new Console() {
        @Override
        public void info(String line) {
            printed.add(line);
        }

        @Override
        public void warn(String line) {
            printed.add("WARN " + line);
        }
    };

    @Test
    void handsOverEachLineWhileTheCommandRuns() {
        List<String> heard = Collections.synchronizedList(new ArrayList<>());
        long[] heardFirstAt = new long[1];
        var result = new ProcessCommandRunner(false, console)
                .stream(
                        Command.of("sh", "-c", "echo one; echo two >&2; sleep 0.5; printf 'three\\rfour'"),
                        (channel, line) -> {
                            if (heard.isEmpty()) {
                                heardFirstAt[0] = System.nanoTime();
                            }
                            heard.add(channel + " " + line);
                        });
        long returnedAt = System.nanoTime();
        assertThat(heard).contains("STDOUT one", "STDERR two", "STDOUT three", "STDOUT four");
        assertThat(heard.indexOf("STDOUT one")).isLessThan(heard.indexOf("STDOUT three"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(returnedAt - heardFirstAt[0]))
                .as("first line heard before the end")
                .isGreaterThan(300);
        assertThat(result.stdout()).isEqualTo("one\nthree\nfour\n");
        assertThat(result.stderr()).isEqualTo("two\n");
        assertThat(printed).isEmpty();
    }

    @Test
    void failsAsRunDoes() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.stream(
                        Command.of("sh", "-c", "echo bad >&2; exit 4").withErrorPrefix("zero out failed"),
                        (channel, line) -> {}))
                .isInstanceOf(StorageException.class)
                .isNotInstanceOf(InterruptedCommandException.class)
                .hasMessage("zero out failed: bad");
    }

    @Test
    void aDryRunPrintsTheCommandAndRunsNothing() {
        List<String> heard = new ArrayList<>();
        var result = new ProcessCommandRunner(true, console)
                .stream(Command.of("blkdiscard", "/dev/sdb", "-v"), (channel, line) -> heard.add(line));
        assertThat(printed).containsExactly("+ blkdiscard /dev/sdb -v");
        assertThat(heard).isEmpty();
        assertThat(result.exitCode()).isZero();
    }

    @Test
    void aChildEndingOnSigtermOrSigintIsAnInterruption() {
        var runner = new ProcessCommandRunner(false, console);
        assertThatThrownBy(() -> runner.run(Command.of("sh", "-c", "kill -TERM $$")))
                .isInstanceOf(InterruptedCommandException.class)
                .hasMessage("command 'sh -c 'kill -TERM $$'' was stopped by SIGTERM");
        // Java reports a child killed by signal n as 128 + n; a shell started with SIGINT ignored
        // (a background job) cannot kill itself with it, so the status stands in for the signal
        assertThatThrownBy(() -> runner.query(Command.of("sh", "-c", "exit 130")))
                .isInstanceOf(InterruptedCommandException.class)
                .hasMessageEndingWith("was stopped by SIGINT");
    }

    @Test
    void stoppingVsmStopsItsRunningChild() throws Exception {
        Process jvm = ChildJvm.start(
                StreamingChildMain.class,
                List.of(ProcessCommandRunner.class, StorageException.class, CommandLine.class, LoggerFactory.class),
                "echo started; exec sleep 60");
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("STDOUT started")) {
                // the child JVM's slf4j notes come first
            }
            assertThat(line).as("the child JVM started its command").isEqualTo("STDOUT started");
            List<ProcessHandle> children = jvm.descendants().toList();
            assertThat(children).as("the sleep under the child JVM").isNotEmpty();

            jvm.destroy(); // SIGTERM, as kill or systemd would send
            assertThat(jvm.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(jvm.exitValue()).isEqualTo(143);
            for (ProcessHandle child : children) {
                child.onExit().get(10, TimeUnit.SECONDS);
                assertThat(child.isAlive())
                        .as("child %s outlived vsm", child.pid())
                        .isFalse();
            }
        } finally {
            jvm.descendants().forEach(ProcessHandle::destroyForcibly);
            jvm.destroyForcibly();
        }
    }
}
