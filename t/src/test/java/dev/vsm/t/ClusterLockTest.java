package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster mode: vsm processes on three "nodes", each with its own local
 * lock directory, share a storage with {@code shared: true}; only the ZooKeeper lock
 * {@code <root>/locks/storage-<id>} keeps them apart. A node killed inside that lock holds it
 * until its session expires, and no longer.
 */
@SlowTest
class ClusterLockTest {
    static final int NODES = 3;
    static final int PER_NODE = 8;

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    private final List<ProcessHandle> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        // only what this test started, by pid: a vsm it killed and the sleeper standing in for qemu-img
        started.forEach(ProcessHandle::destroyForcibly);
    }

    private List<Vsm> nodes(String root, int sessionTimeout) {
        List<Vsm> nodes = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            nodes.add(zk.node(sandbox, "node" + i, root, sessionTimeout)
                    .env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS));
        }
        return nodes;
    }

    /** 8 allocs on each of the 3 nodes at once, all on {@code storage}. */
    private static Set<String> allocEverywhere(List<Vsm> nodes, String storage, String... extra) throws Exception {
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (Vsm node : nodes) {
            for (int i = 0; i < PER_NODE; i++) {
                List<String> args = new ArrayList<>(List.of("alloc", storage, "100", "", "1M"));
                args.addAll(List.of(extra));
                runs.add(() -> node.run(args.toArray(String[]::new)));
            }
        }
        long start = System.nanoTime();
        List<Vsm.Result> results = ConcurrencyTest.together(runs);
        System.out.printf(
                "ClusterLockTest: %d allocs on %s from %d nodes took %d ms%n",
                runs.size(), storage, nodes.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        for (Vsm.Result r : results) {
            if (r.exit() != 0) {
                // the only acceptable failure: the cluster lock's timeout, in the local lock's words
                assertThat(r.err().strip())
                        .as("exit %d", r.exit())
                        .matches("can't lock '/vsm-[a-z0-9]+/locks/storage-" + storage + "' - got timeout");
            }
        }
        return ConcurrencyTest.createdOrTimedOut(results);
    }

    @Test
    void threeNodesAllocatingOnASharedDirStorageGetDistinctWholeVolumes() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Path store = sandbox.resolve("shared-store");
        List<Vsm> nodes = nodes(root, 10);
        ClusterEnsemble.seed(nodes.get(0), """
                storages:
                  shared:
                    type: dir
                    path: %s
                    content: [images]
                    shared: true
                """.formatted(store));
        Set<String> created = allocEverywhere(nodes, "shared", "--format", "qcow2");
        assertThat(created).hasSize(NODES * PER_NODE);

        Path dir = store.resolve("images/100");
        Set<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(f -> files.add(f.getFileName().toString()));
        }
        // nothing half made: only whole images (qemu-img check), no temporary left
        assertThat(files)
                .hasSize(NODES * PER_NODE)
                .allSatisfy(f -> assertThat(f).matches("vm-100-disk-\\d+\\.qcow2"));
        files.forEach(f -> QemuImg.check(dir.resolve(f)));
        Set<String> listed = new TreeSet<>();
        for (Vsm node : nodes) {
            Set<String> seen = new TreeSet<>();
            node.run("list", "shared", "--output-format", "json")
                    .ok()
                    .json()
                    .forEach(v -> seen.add(v.get("volid").asText()));
            if (listed.isEmpty()) {
                listed.addAll(seen);
            }
            assertThat(seen).as("what %s lists", node.sandbox().getFileName()).isEqualTo(listed);
        }
        assertThat(created)
                .containsExactlyInAnyOrderElementsOf(listed.stream()
                        .map(v -> "successfully created '" + v + "'")
                        .toList());
        // each node kept its own local lock directory: ZooKeeper alone kept them apart
        assertThat(nodes.stream().map(n -> n.environment().get("VSM_LOCK_DIR")).distinct())
                .hasSize(NODES);
    }

    @RootTest
    @Test
    void threeNodesAllocatingOnASharedVolumeGroupGetDistinctWholeVolumes() throws Exception {
        try (LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(256).create()) {
            String root = ClusterEnsemble.newRoot();
            List<Vsm> nodes = nodes(root, 10);
            nodes.forEach(n -> n.env(vg.environment())); // one VG that every node sees, as a SAN LUN
            ClusterEnsemble.seed(nodes.get(0), """
                    storages:
                      san:
                        type: lvm
                        vgname: %s
                        shared: true
                    """.formatted(vg.name()));
            Set<String> created = allocEverywhere(nodes, "san");
            assertThat(created).hasSize(NODES * PER_NODE);
            List<String> lvs = vg.lvNames();
            assertThat(lvs).hasSize(NODES * PER_NODE).allSatisfy(lv -> {
                assertThat(lv).matches("vm-100-disk-\\d+");
                assertThat(vg.lvSize(lv)).contains(4L << 20);
                assertThat(vg.tags(lv)).containsExactly("pve-vm-100");
            });
            assertThat(created)
                    .containsExactlyInAnyOrderElementsOf(lvs.stream()
                            .map(lv -> "successfully created 'san:" + lv + "'")
                            .toList());
            assertThat(nodes.get(2).run("list", "san").ok().lines()).hasSize(NODES * PER_NODE + 1);
        }
    }

    /**
     * A node is killed (SIGKILL, with the qemu-img it was running) while it holds the shared
     * storage's cluster lock. Another node waits for the lock while the dead node's session lives,
     * then gets it; afterwards the dead process is gone from {@code vsm cluster status}.
     */
    @Test
    void aKilledHoldersLockGoesWithItsSession() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Path store = sandbox.resolve("shared-store");
        int sessionTimeout = 4;
        List<Vsm> nodes = nodes(root, sessionTimeout);
        Vsm node1 = nodes.get(0);
        Vsm node2 = nodes.get(1);
        ClusterEnsemble.seed(node1, """
                storages:
                  shared:
                    type: dir
                    path: %s
                    content: [images]
                    shared: true
                """.formatted(store));
        node1.run("status").ok(); // a first run, so the next one is not slowed by anything but the lock

        // node1's qemu-img: 'create' notes its pid and sleeps, so vsm blocks inside the storage lock
        Path marker = sandbox.resolve("qemu-img-create.pid");
        node1.env(
                "VSM_QEMU_IMG",
                qemuImgStoppingAtCreate(marker, "exec sleep 600").toString());
        Vsm.Started holder = node1.start("alloc", "shared", "100", "", "1M", "--format", "qcow2");
        started.add(holder.process().toHandle());
        long holderPid = holder.process().pid();
        awaitFile(marker, holder);
        ProcessHandle sleeper = ProcessHandle.of(
                        Long.parseLong(Files.readString(marker).strip()))
                .orElseThrow();
        started.add(sleeper);

        // while node1 lives, the lock is its: node2 times out on it, and cluster status shows who holds it
        Vsm.Result status = node2.run("cluster", "status").ok();
        assertThat(status.out()).contains(root + "/locks/storage-shared").contains("node1 pid " + holderPid);
        assertThat(pidsOf(root, "node1"))
                .as("node1's running processes in ZooKeeper")
                .contains(holderPid);
        assertThat(mentionsPid(status.out(), holderPid))
                .as("cluster status lists node1's process %d:%n%s", holderPid, status.out())
                .isTrue();
        node2.env("VSM_LOCK_TIMEOUT", "2");
        Vsm.Result blocked = node2.run("alloc", "shared", "100", "", "1M", "--format", "raw");
        assertThat(blocked.exit()).as("stderr: %s", blocked.err()).isEqualTo(1);
        assertThat(blocked.err().strip()).isEqualTo("can't lock '" + root + "/locks/storage-shared' - got timeout");

        // the crash: vsm and its qemu-img die at once, nothing releases the lock but the session's end
        holder.process().destroyForcibly();
        sleeper.destroyForcibly();
        assertThat(holder.finish().exit()).isNotZero();
        sleeper.onExit().get(30, TimeUnit.SECONDS);
        long killed = System.nanoTime();
        node2.env("VSM_LOCK_TIMEOUT", "60");
        Vsm.Result after =
                node2.run("alloc", "shared", "100", "", "1M", "--format", "raw").ok();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        System.out.printf(
                "ClusterLockTest: node2 got the lock %d ms after node1 was killed (session-timeout %d s)%n",
                waited, sessionTimeout);
        assertThat(after.out()).startsWith("successfully created 'shared:100/vm-100-disk-");
        assertThat(node2.run("list", "shared").ok().out())
                .contains(after.out().replaceAll("(?s).*'(shared:[^']+)'.*", "$1"));

        assertThat(pidsOf(root, "node1"))
                .as("node1's processes after its session expired")
                .doesNotContain(holderPid);
        Vsm.Result later = node2.run("cluster", "status").ok();
        assertThat(mentionsPid(later.out(), holderPid))
                .as("cluster status still lists the dead process %d:%n%s", holderPid, later.out())
                .isFalse();
        assertThat(later.out()).doesNotContain("node1 pid " + holderPid);
    }

    /**
     * A node stalls while it holds the shared storage's lock (SIGSTOP: a long GC pause, a frozen
     * VM). Its session expires and another node gets the lock, as ZooKeeper must allow. When the
     * stalled node runs on, the contract has it stop at its next lock check with an error that
     * says so, rather than finish its work under a lock it no longer holds.
     */
    @Test
    void aNodeThatLostItsSessionInsideTheLockStopsBeforeItsNextChange() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Path store = sandbox.resolve("shared-store");
        List<Vsm> nodes = nodes(root, 4);
        Vsm stalled = nodes.get(0);
        Vsm other = nodes.get(1).env("VSM_LOCK_TIMEOUT", "60");
        ClusterEnsemble.seed(other, """
                storages:
                  shared:
                    type: dir
                    path: %s
                    content: [images]
                    shared: true
                """.formatted(store));
        // node1's qemu-img create waits for a go file: vsm is inside the storage lock meanwhile
        Path marker = sandbox.resolve("qemu-img-create.pid");
        Path go = sandbox.resolve("go");
        stalled.env(
                "VSM_QEMU_IMG",
                qemuImgStoppingAtCreate(marker, "while [ ! -e '" + go + "' ]; do sleep 0.1; done")
                        .toString());
        Vsm.Started holder = stalled.start("alloc", "shared", "100", "", "1M", "--format", "qcow2");
        started.add(holder.process().toHandle());
        String pid = Long.toString(holder.process().pid());
        try {
            awaitFile(marker, holder);
            signal("-STOP", pid);
            // node1's session expires (it cannot ping); node2 gets the lock while node1 is still inside its work
            String made = other.run("alloc", "shared", "100", "", "1M", "--format", "raw")
                    .ok()
                    .out()
                    .strip();
            assertThat(holder.process().isAlive()).isTrue();
            signal("-CONT", pid);
            Thread.sleep(3000); // node1's client reconnects and learns that its session expired
            Files.writeString(go, "");
            Vsm.Result r = holder.finish();
            System.out.printf(
                    "ClusterLockTest: node2 %s while node1 was stalled in the lock; node1 then: exit %d, stdout '%s', stderr '%s'%n",
                    made, r.exit(), r.out().strip(), r.err().strip());
            assertThat(r.exit())
                    .as("node1: stdout %s stderr %s", r.out(), r.err())
                    .isEqualTo(1);
            assertThat(r.err().strip()).contains("lost").doesNotContain("\n");
            String node2s = made.replaceAll(".*/(vm-[^']+)'.*", "$1");
            try (Stream<Path> files = Files.list(store.resolve("images/100"))) {
                assertThat(files.map(f -> f.getFileName().toString())
                                .filter(f -> f.startsWith("vm-"))
                                .toList())
                        .as("whole volumes: only node2's")
                        .containsExactly(node2s);
            }
            other.run("cleanup", "shared").ok(); // whatever node1 left half made goes
            try (Stream<Path> files = Files.list(store.resolve("images/100"))) {
                assertThat(files.map(f -> f.getFileName().toString()).toList())
                        .as("after cleanup")
                        .containsExactly(node2s);
            }
        } finally {
            signal("-CONT", pid);
        }
    }

    /**
     * A qemu-img stand-in: {@code create} writes its pid to {@code marker} (so vsm is inside the
     * storage lock), then runs the shell line {@code then}, then the real qemu-img, unless
     * {@code then} ended with exec; everything else is the real qemu-img.
     */
    private Path qemuImgStoppingAtCreate(Path marker, String then) throws Exception {
        Path script = sandbox.resolve("qemu-img-stopping-at-create");
        Files.writeString(script, """
                #!/bin/sh
                case "$*" in *help*) exec qemu-img "$@";; esac
                case " $* " in *" create "*) echo $$ > '%1$s.tmp' && mv '%1$s.tmp' '%1$s'; %2$s;; esac
                exec qemu-img "$@"
                """.formatted(marker, then));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private static void awaitFile(Path file, Vsm.Started process) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file)) {
            if (!process.process().isAlive()) {
                throw new AssertionError("vsm ended before qemu-img create: " + process.finish());
            }
            assertThat(System.nanoTime())
                    .as("vsm reached qemu-img create within 60 s")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** kill(1) with a signal, for a process this test started. */
    private static void signal(String signal, String pid) throws Exception {
        new ProcessBuilder("kill", signal, pid).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }

    /** The pids of the running processes a node has registered ({@code <root>/nodes/<node>/pid-<pid>-<seq>}). */
    private static Set<Long> pidsOf(String root, String node) throws Exception {
        Set<Long> pids = new TreeSet<>();
        for (String child : zk.children(root + "/nodes/" + node)) {
            assertThat(child).matches("pid-\\d+-\\d+");
            pids.add(Long.parseLong(child.split("-")[1]));
        }
        return pids;
    }

    /** Whether {@code text} names the pid as a number of its own (not inside a longer number, a time or a version). */
    static boolean mentionsPid(String text, long pid) {
        return java.util.regex.Pattern.compile("(?<![\\d.:T+-])" + pid + "(?![\\d.:])")
                .matcher(text)
                .find();
    }
}
