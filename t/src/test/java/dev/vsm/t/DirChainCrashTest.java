package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

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
import java.util.concurrent.TimeUnit;
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
    private static final int MIB = 1024 * 1024;
    private static final String VOLID = "chain:100/vm-100-disk-0.qcow2";
    private static final String FILE = "vm-100-disk-0.qcow2";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path images;
    /** The volume's size. */
    private int size;
    /** What the guest sees in the volume now. */
    private byte[] current;
    /** Each snapshot's data, oldest first: the chain below current. */
    private final Map<String, byte[]> snapshots = new LinkedHashMap<>();

    private Vsm.Started killed;
    /** The qemu-img of a killed vsm, stopped by the test. */
    private ProcessHandle orphan;

    @AfterEach
    void killLeftover() {
        if (killed != null && killed.process().isAlive()) {
            killed.process().destroyForcibly(); // only the process this test started, by its handle
        }
        if (orphan != null && orphan.isAlive()) {
            orphan.destroyForcibly(); // the qemu-img it started, stopped by this test, by its handle
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
        recoverAndGoOn(step, finished, byCleanup);
    }

    /**
     * kill -9 of vsm while the qemu-img it runs writes: {@code qemu-img commit} of {@code s2} into
     * {@code s1} (the delete of the oldest), or the safe {@code qemu-img rebase} of {@code s3} onto
     * {@code s1} (the delete of a middle one), both copying the 32 MiB {@code s2} holds. vsm stops
     * before it starts qemu-img ({@code qemu-img#1}); once let go, it is killed as soon as its
     * qemu-img child has the layer it writes open, mid-way through the copy (which takes some 100
     * ms). The child dies with vsm (docs/volume-chains.md, "Crash safety": an orphan would go on
     * writing while the next operation recovers, and switch the child's backing name after the
     * recovery undid the rebase). The delete by commit is finished by the recovery (it commits
     * again), the delete by rebase undone (the child still names {@code s2}; finished if the kill
     * came after its switch).
     */
    @ParameterizedTest(name = "{0}, vsm killed while its qemu-img runs, recovered by cleanup: {1}")
    @MethodSource("childRounds")
    void aKillWhileQemuImgWritesIsFinishedOrUndone(String command, boolean byCleanup) throws Exception {
        setUpChain(32);
        String[] args = command.split(" ");
        Vsm stopping = new Vsm(sandbox).env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=qemu-img#1");
        killed = stopping.start(args);
        killed.awaitPaused(120);
        Path written = images.resolve("snap-" + (args[2].equals("s1") ? "s2" : "s3") + "-" + FILE);
        ProcessHandle qemuImg = killWhenItsQemuImgHasOpen(killed.process(), written);
        assertThat(killed.finish().exit()).isEqualTo(137);
        // its qemu-img is gone too, before anything runs on the chain again
        try {
            qemuImg.onExit().get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            fail("vsm's qemu-img (pid %d) lived on after vsm was killed", qemuImg.pid());
        }
        // a rebase is done once the child names s1, its last step (the kill may have come after it)
        boolean finished = args[2].equals("s1")
                || QemuImg.backingChain(written).get(1).get("filename").asText().endsWith("/snap-s1-" + FILE);
        if (finished) {
            expectDone(args);
        }
        recoverAndGoOn("qemu-img#1", finished, byCleanup);
    }

    static Stream<Arguments> childRounds() {
        String commit = "snapshot-delete " + VOLID + " s1";
        String rebase = "snapshot-delete " + VOLID + " s2";
        return Stream.of(
                Arguments.of(commit, true),
                Arguments.of(commit, false),
                Arguments.of(rebase, true),
                Arguments.of(rebase, false));
    }

    /**
     * Lets the stopped vsm go on; as soon as a qemu-img it started has {@code layer} open (it opens
     * the images before it copies), stops that qemu-img (SIGSTOP: frozen where it is) and kills vsm
     * with SIGKILL. Returns that qemu-img: it dies with vsm, stopped or not; an orphan would stay
     * stopped, and the test fail waiting for its end.
     */
    private ProcessHandle killWhenItsQemuImgHasOpen(Process vsm, Path layer) throws Exception {
        ProcessHandle child = null;
        signal("CONT", vsm.pid());
        while (child == null) {
            assertThat(vsm.isAlive())
                    .as("vsm runs until its qemu-img opened %s", layer)
                    .isTrue();
            child = vsm.toHandle()
                    .descendants()
                    .filter(h -> h.info().command().orElse("").endsWith("/qemu-img") && hasOpen(h, layer))
                    .findFirst()
                    .orElse(null);
            Thread.onSpinWait();
        }
        orphan = child;
        signal("STOP", child.pid());
        vsm.destroyForcibly(); // SIGKILL, while its qemu-img is stopped mid-way
        return child;
    }

    private static boolean hasOpen(ProcessHandle process, Path file) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
            return fds.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(file);
                } catch (IOException e) {
                    return false; // closed meanwhile
                }
            });
        } catch (IOException e) {
            return false; // ended meanwhile
        }
    }

    /** kill -{@code signal} {@code pid}: a process this test started. */
    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
    }

    /**
     * The next operation after the kill, {@code vsm cleanup} or another snapshot, finishes or
     * undoes what it left; every layer reads back; then the volume goes on.
     */
    private void recoverAndGoOn(String step, boolean finished, boolean byCleanup) throws IOException {
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
        setUpChain(1);
    }

    /** As {@link #setUpChain()}, the volume {@code mib} MiB, and {@code s2} holding all of it when more than 1. */
    private void setUpChain(int mib) {
        Path store = sandbox.resolve("store");
        vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  chain:\n    type: dir\n    path: " + store
                        + "\n    content: images\n    snapshot-as-volume-chain: 1\n");
        images = store.resolve("images/100");
        size = mib * MIB;
        current = new byte[size];
        vsm.run("alloc", "chain", "100", "", mib + "M", "--format", "qcow2").ok();
        write(0x11, 0, 256 * 1024);
        snapshot("s1");
        write(0x22, mib > 1 ? 0 : 128 * 1024, mib > 1 ? size : 64 * 1024);
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
