package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.QemuIo;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * kill -9 at every step of a dir volume chain's operations (docs/volume-chains.md, "Crash safety"):
 * a chain {@code s1 <- s2 <- s3 <- current} with known data in each layer; the real {@code cli/vsm}
 * stops itself before one step ({@code vsm.test.pause-before=<step>#<n>}, dev.vsm.env.TestPause) and
 * is killed there with SIGKILL; then the next operation on the volume, {@code vsm cleanup} or
 * another snapshot, finishes or undoes it as the table says. Every layer then reads back byte for
 * byte, {@code qemu-img info --backing-chain} of the volume is whole, and the directory holds the
 * chain's files and nothing else.
 */
@SlowTest
class DirChainCrashTest {
    private static final int SIZE = 1024 * 1024;
    private static final String VOLID = "chain:100/vm-100-disk-0.qcow2";
    private static final String FILE = "vm-100-disk-0.qcow2";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path images;
    /** What the guest sees in the volume now. */
    private byte[] current;
    /** Each snapshot's data, oldest first: the chain below current. */
    private final Map<String, byte[]> snapshots = new LinkedHashMap<>();

    private Vsm.Started killed;

    @AfterEach
    void killLeftover() {
        if (killed != null && killed.process().isAlive()) {
            killed.process().destroyForcibly(); // only the process this test started, by its handle
        }
    }

    /** One operation, one step to stop before, and whether recovery finishes it (else undoes it). */
    static Stream<Arguments> rounds() {
        List<Arguments> rounds = new ArrayList<>();
        String[] snapshot = {"snapshot", VOLID, "s4"};
        String[] rollback = {"rollback", VOLID, "s3"};
        String[] commit = {"snapshot-delete", VOLID, "s1"};
        String[] rebase = {"snapshot-delete", VOLID, "s2"};
        String[] rename = {"rename-snapshot", VOLID, "s2", "t2"};
        // step (what the process does next), finished: the intent record is written at "replace"
        add(rounds, snapshot, "replace", false);
        add(rounds, snapshot, "move#1", false); // current renamed to the snapshot
        add(rounds, snapshot, "moved#1", false); // both names made, the old one not yet gone
        add(rounds, snapshot, "qemu-img#1", false); // the new overlay made under a temporary name
        add(rounds, snapshot, "move#2", false); // ... and published as current
        add(rounds, snapshot, "moved#2", true);
        add(rounds, snapshot, "unlink#1", true); // the intent record removed
        add(rounds, rollback, "replace", false);
        add(rounds, rollback, "unlink#1", true); // current removed
        add(rounds, rollback, "qemu-img#1", true);
        add(rounds, rollback, "move#1", true);
        add(rounds, rollback, "moved#1", true);
        add(rounds, rollback, "unlink#2", true);
        add(rounds, commit, "replace", false);
        add(rounds, commit, "qemu-img#1", true); // qemu-img commit of s2 into s1
        add(rounds, commit, "unlink#1", true); // s2 removed
        add(rounds, commit, "move#1", true); // s1 renamed to s2
        add(rounds, commit, "moved#1", true);
        add(rounds, commit, "unlink#2", true);
        add(rounds, rebase, "replace", false);
        add(rounds, rebase, "qemu-img#1", false); // qemu-img rebase of s3 onto s1
        add(rounds, rebase, "unlink#1", true); // s2 removed
        add(rounds, rebase, "unlink#2", true);
        add(rounds, rename, "replace", false);
        add(rounds, rename, "move#1", false); // s2's file renamed to t2's
        add(rounds, rename, "moved#1", true);
        add(rounds, rename, "qemu-img#1", true); // qemu-img rebase -u of s3 onto t2
        add(rounds, rename, "unlink#1", true);
        return rounds.stream();
    }

    private static void add(List<Arguments> rounds, String[] command, String step, boolean finished) {
        // half the rounds go on with vsm cleanup, half with the volume's next change
        rounds.add(Arguments.of(String.join(" ", command), step, finished, rounds.size() % 2 == 0));
    }

    @ParameterizedTest(name = "{0}, killed before {1}")
    @MethodSource("rounds")
    void aKillAtAnyStepIsFinishedOrUndoneByTheNextOperation(
            String command, String step, boolean finished, boolean byCleanup) throws IOException {
        setUpChain();
        String[] args = command.split(" ");
        Vsm stopping = new Vsm(sandbox).env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=" + step);
        killed = stopping.start(args);
        killed.awaitPaused(120);
        killed.process().destroyForcibly(); // SIGKILL, while it is stopped at the step
        assertThat(killed.finish().exit()).isEqualTo(137);

        if (finished) {
            expectDone(args);
        }
        if (byCleanup) {
            assertThat(vsm.run("cleanup", "chain").ok().out()).startsWith("cleanup of storage 'chain' done");
        } else {
            String err = vsm.run("snapshot", VOLID, "next").ok().err();
            if (!step.equals("replace")) { // killed before its intent record was there: nothing to recover
                assertThat(err).contains(FILE).contains(finished ? "finished" : "undone");
            }
            snapshots.put("next", current.clone());
            vsm.run("cleanup", "chain").ok(); // the temporary files of the killed run
        }
        verify();
        // and the volume goes on: a write, a snapshot, a delete of the oldest
        write(0x77, 640 * 1024, 4096);
        vsm.run("snapshot", VOLID, "after").ok();
        snapshots.put("after", current.clone());
        String oldest = snapshots.keySet().iterator().next();
        vsm.run("snapshot-delete", VOLID, oldest).ok();
        snapshots.remove(oldest);
        verify();
    }

    /** {@code alloc}, then three snapshots with data written before and after each (in this JVM). */
    private void setUpChain() {
        Path store = sandbox.resolve("store");
        vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  chain:\n    type: dir\n    path: " + store
                        + "\n    content: images\n    snapshot-as-volume-chain: 1\n");
        images = store.resolve("images/100");
        current = new byte[SIZE];
        vsm.run("alloc", "chain", "100", "", "1M", "--format", "qcow2").ok();
        write(0x11, 0, 256 * 1024);
        snapshot("s1");
        write(0x22, 128 * 1024, 64 * 1024);
        write(0x23, 4096, 4096);
        snapshot("s2");
        write(0x33, 512 * 1024, 128 * 1024);
        snapshot("s3");
        write(0x44, 8192, 512);
        write(0x45, 900 * 1024, 8192);
    }

    /** What the model holds once {@code args} is done. */
    private void expectDone(String[] args) {
        switch (args[0]) {
            case "snapshot" -> snapshots.put(args[2], current.clone());
            case "rollback" -> current = snapshots.get(args[2]).clone();
            case "snapshot-delete" -> {
                // by commit (the oldest) or by rebase: the layers above read as before either way
                snapshots.remove(args[2]);
            }
            case "rename-snapshot" -> {
                Map<String, byte[]> renamed = new LinkedHashMap<>();
                snapshots.forEach((k, v) -> renamed.put(k.equals(args[2]) ? args[3] : k, v));
                snapshots.clear();
                snapshots.putAll(renamed);
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private void snapshot(String name) {
        vsm.run("snapshot", VOLID, name).ok();
        snapshots.put(name, current.clone());
    }

    private void write(int pattern, int offset, int length) {
        QemuIo.write(images.resolve(FILE), current, pattern, offset, length);
    }

    /**
     * Every layer reads back as the model says, the backing chain is whole and is exactly the
     * snapshots' files under current, every image is consistent, and nothing else is left in the
     * directory (no intent record, no temporary file).
     */
    private void verify() throws IOException {
        List<String> expected = new ArrayList<>();
        expected.add(FILE);
        List<String> names = new ArrayList<>(snapshots.keySet());
        for (int i = names.size() - 1; i >= 0; i--) {
            expected.add("snap-" + names.get(i) + "-" + FILE);
        }
        List<String> chain = new ArrayList<>();
        for (JsonNode image : QemuImg.backingChain(images.resolve(FILE))) {
            chain.add(Path.of(image.get("filename").asText()).getFileName().toString());
        }
        assertThat(chain).as("the backing chain, top first").isEqualTo(expected);
        try (Stream<Path> files = Files.list(images)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted())
                    .as("the files of the volume's directory")
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
        QemuIo.assertReadsAs("current", images.resolve(FILE), current, sandbox);
        for (Map.Entry<String, byte[]> s : snapshots.entrySet()) {
            Path layer = images.resolve("snap-" + s.getKey() + "-" + FILE);
            QemuIo.assertReadsAs("snapshot " + s.getKey(), layer, s.getValue(), sandbox);
        }
        for (String name : expected) {
            QemuImg.check(images.resolve(name));
        }
    }
}
