package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve}'s frees as pve's tasks {@code imgdel} ({@code DELETE .../content/{volume}}
 * answers a UPID; a failed free fails the task; pve's {@code delay}) and pve's task stop ({@code
 * DELETE /nodes/{node}/tasks/{upid}}): a free waiting for its storage's lock, which a {@code vsm
 * alloc} process holds (stopped before its qemu-img), is stopped by its owner and ends {@code
 * received interrupt} with nothing freed; stopping an ended task is {@code null}; another's task,
 * an unknown or malformed UPID are refused and stop nothing.
 */
class ServeTasksTest {
    private static final String NODE = "tasknode";
    private static final String PATH = "/nodes/" + NODE + "/storage/store/content/";
    private static final String TASKS = "/nodes/" + NODE + "/tasks/";

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    /** root@pam!full: root, no privilege separation. */
    static String root;
    /** ops@pve!free and dev@pve!free: each every Datastore privilege on /, neither root. */
    static String ops;

    static String dev;

    @BeforeAll
    static void serve() throws Exception {
        // a free waiting for the holder's lock must wait to be stopped, not time out on pve's 10 s
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE).env("VSM_LOCK_TIMEOUT", "300");
        Files.createDirectories(sandbox.resolve("store"));
        vsm.writeConfig("storages:\n  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images, backup]\n");
        root = ServeProcess.token(vsm, "root@pam", "full", "--privsep", "0");
        ops = ServeProcess.token(vsm, "ops@pve", "free", "--privsep", "0");
        dev = ServeProcess.token(vsm, "dev@pve", "free", "--privsep", "0");
        for (String user : List.of("ops@pve", "dev@pve")) {
            vsm.run(
                            "acl",
                            "modify",
                            "/",
                            "--users",
                            user,
                            "--privs",
                            "Datastore.Allocate,Datastore.AllocateSpace,Datastore.Audit")
                    .ok();
        }
        server = ServeProcess.start(vsm);
        api = server.client();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static JsonNode task(String token, String upid, String what) {
        Reply r = api.get(token, TASKS + upid + "/" + what);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.data();
    }

    private static List<String> log(String token, String upid) {
        List<String> lines = new ArrayList<>();
        task(token, upid, "log").forEach(line -> lines.add(line.get("t").asText()));
        return lines;
    }

    private static String alloc(int vmid, String name) {
        vsm.run("alloc", "store", Integer.toString(vmid), name, "1M").ok();
        return "store:" + vmid + "/" + name;
    }

    @Test
    void aFreeIsATaskImgdelWhoseFailureIsTheTasks() throws IOException {
        String volid = alloc(300, "vm-300-disk-0.raw");
        Reply free = api.delete(ops, PATH + volid);
        assertThat(free.status()).as(free.body()).isEqualTo(200);
        String upid = free.data().asText();
        assertThat(upid)
                .matches("UPID:" + NODE + ":[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgdel:300@store:ops@pve!free:");
        assertThat(task(ops, upid, "status").get("status").asText()).isEqualTo("stopped");
        assertThat(task(ops, upid, "status").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(log(ops, upid)).containsExactly("Removed volume '" + volid + "'", "TASK OK");
        assertThat(vsm.run("list", "store").ok().out()).doesNotContain(volid);
        assertThat(api.get(ops, "/nodes/" + NODE + "/tasks?typefilter=imgdel")
                        .data()
                        .toString())
                .contains(upid);

        // a protected backup: the free fails, in its task, and removes nothing
        String backup = protectedBackup(307);
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        Reply refused = api.delete(ops, PATH + backup);
        assertThat(refused.status()).as(refused.body()).isEqualTo(200);
        String failed = refused.data().asText();
        assertThat(failed).contains(":imgdel:307@store:ops@pve!free:");
        JsonNode status = task(ops, failed, "status");
        assertThat(status.get("status").asText()).isEqualTo("stopped");
        assertThat(status.get("exitstatus").asText()).contains("protected");
        assertThat(log(ops, failed))
                .containsExactly("TASK ERROR: " + status.get("exitstatus").asText());
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }

    /** A backup of {@code vmid}, protected (pve's {@code protected}: it may not be freed). */
    private static String protectedBackup(int vmid) throws IOException {
        String name = "vzdump-qemu-" + vmid + "-2024_01_02-03_04_05.vma.zst";
        Files.createDirectories(sandbox.resolve("store/dump"));
        Files.writeString(sandbox.resolve("store/dump/" + name), "a backup");
        String volid = "store:backup/" + name;
        Reply set = api.put(root, PATH + volid, "protected=1");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        return volid;
    }

    @Test
    void pvesDelayAnswersNullForAFreeThatEndedWellAndTheErrorForOneThatFailed() throws IOException {
        String volid = alloc(301, "vm-301-disk-0.raw");
        Reply free = api.delete(ops, PATH + volid + "?delay=5");
        assertThat(free.status()).as(free.body()).isEqualTo(200);
        assertThat(free.data().isNull()).isTrue();
        assertThat(vsm.run("list", "store").ok().out()).doesNotContain(volid);

        Reply refused = api.delete(ops, PATH + protectedBackup(308) + "?delay=5");
        assertThat(refused.status()).as(refused.body()).isEqualTo(500);
        assertThat(refused.json().get("message").asText()).contains("protected");
        assertThat(sandbox.resolve("store/dump/vzdump-qemu-308-2024_01_02-03_04_05.vma.zst"))
                .exists();

        String kept = alloc(302, "vm-302-disk-0.raw");
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        for (String bad : List.of("0", "31", "x", "-1")) {
            Reply reply = api.delete(ops, PATH + kept + "?delay=" + bad);
            assertThat(reply.status()).as("delay=%s: %s", bad, reply.body()).isEqualTo(400);
            assertThat(reply.json().get("errors").has("delay")).isTrue();
        }
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }

    @Test
    void checksBeforeTheTaskAreAnsweredDirectlyAndStartNone() {
        String volid = alloc(303, "vm-303-disk-0.raw");
        int tasks = api.get(root, "/nodes/" + NODE + "/tasks?source=all&limit=1000")
                .data()
                .size();
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        Reply unknown = api.delete(root, "/nodes/" + NODE + "/storage/nosuch/content/nosuch:303%2Fvm-303-disk-0.raw");
        assertThat(unknown.status()).as(unknown.body()).isBetween(400, 499);
        Reply traversing = api.delete(root, PATH + "store:303%2F..%2F..%2Fx.raw");
        assertThat(traversing.status()).as(traversing.body()).isEqualTo(400);
        Reply notAName = api.delete(root, PATH + "store:images%2Fx");
        assertThat(notAName.status()).as(notAName.body()).isEqualTo(400);
        String audit = ServeProcess.token(vsm, "ops@pve", "audit", "--privsep", "1");
        vsm.run("acl", "modify", "/storage", "--tokens", "ops@pve!audit", "--privs", "Datastore.Audit")
                .ok();
        Reply forbidden = api.delete(audit, PATH + volid);
        assertThat(forbidden.status()).as(forbidden.body()).isEqualTo(403);
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
        assertThat(api.get(root, "/nodes/" + NODE + "/tasks?source=all&limit=1000")
                        .data()
                        .size())
                .isEqualTo(tasks);
    }

    @Test
    void stoppingAnEndedTaskIsNullAndOnlyItsOwnerOrRootMay() {
        String volid = alloc(304, "vm-304-disk-0.raw");
        String upid = api.delete(ops, PATH + volid).data().asText();
        JsonNode status = task(ops, upid, "status");

        Reply another = api.delete(dev, TASKS + upid);
        assertThat(another.status()).as(another.body()).isEqualTo(403);
        assertThat(another.json().get("message").asText())
                .isEqualTo("Permission check failed (/nodes/" + NODE + ", Sys.Modify)\n");
        Reply own = api.delete(ops, TASKS + upid);
        assertThat(own.status()).as(own.body()).isEqualTo(200);
        assertThat(own.data().isNull()).isTrue();
        Reply byRoot = api.delete(root, TASKS + upid);
        assertThat(byRoot.status()).as(byRoot.body()).isEqualTo(200);
        assertThat(task(ops, upid, "status")).isEqualTo(status);
        assertThat(log(ops, upid)).last().isEqualTo("TASK OK");

        String unknown = upid.replace(":imgdel:", ":imgcopy:");
        Reply none = api.delete(ops, TASKS + unknown);
        assertThat(none.status()).as(none.body()).isEqualTo(400);
        assertThat(none.json().get("errors").get("upid").asText()).isEqualTo("no such task");
        for (String bad : List.of("UPID:x", "nothing", "UPID:" + NODE + ":0:0:0:imgdel::ops@pve:")) {
            Reply reply = api.delete(ops, TASKS + bad);
            assertThat(reply.status()).as("%s: %s", bad, reply.body()).isEqualTo(400);
            assertThat(reply.json().get("errors").get("upid").asText()).startsWith("unable to parse worker upid");
        }
        Reply otherNode = api.delete(ops, "/nodes/elsewhere/tasks/" + upid);
        assertThat(otherNode.status()).as(otherNode.body()).isBetween(400, 599).isNotEqualTo(200);
        assertThat(api.delete(null, TASKS + upid).status()).isEqualTo(401);
    }

    /**
     * The free waits for the storage's lock, which a stopped {@code vsm alloc} holds; its owner
     * finds it in the task list and stops it: the wait is interrupted, the task ends {@code
     * received interrupt} (pve's words for a worker that was stopped), its log says so, and the
     * volume is still there. The server's thread is none the worse: the next free works.
     */
    @Test
    void aRunningFreeIsStoppedAndFreesNothing() throws Exception {
        String volid = alloc(305, "vm-305-disk-0.raw");
        Vsm.Started holder = new Vsm(sandbox.resolve("vsm"))
                .env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=qemu-img")
                .start("alloc", "store", "306", "vm-306-disk-0.qcow2", "1M", "--format", "qcow2");
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            holder.awaitPaused(120);
            Future<Reply> free = client.submit(() -> server.client().delete(ops, PATH + volid));
            String upid = null;
            for (int i = 0; i < 600 && upid == null; i++) {
                for (JsonNode t : api.get(ops, "/nodes/" + NODE + "/tasks?source=active&typefilter=imgdel")
                        .data()) {
                    upid = t.get("upid").asText();
                }
                if (upid == null) {
                    Thread.sleep(100);
                }
            }
            assertThat(upid).as("the free's task is listed as running").isNotNull();
            assertThat(task(ops, upid, "status").get("status").asText()).isEqualTo("running");
            assertThat(free).isNotDone();

            Reply stop = api.delete(ops, TASKS + upid);
            assertThat(stop.status()).as(stop.body()).isEqualTo(200);
            assertThat(stop.data().isNull()).isTrue();
            Reply freed = free.get(60, TimeUnit.SECONDS);
            assertThat(freed.status()).as(freed.body()).isEqualTo(200);
            assertThat(freed.data().asText()).isEqualTo(upid);
            JsonNode status = task(ops, upid, "status");
            assertThat(status.get("status").asText()).isEqualTo("stopped");
            assertThat(status.get("exitstatus").asText()).isEqualTo("received interrupt");
            List<String> log = log(ops, upid);
            assertThat(log).last().isEqualTo("TASK ERROR: received interrupt");
            assertThat(log).hasSize(2);
            assertThat(log.get(0)).contains("interrupted");
            assertThat(sandbox.resolve("store/images/305/vm-305-disk-0.raw")).exists();

            new ProcessBuilder("kill", "-CONT", Long.toString(holder.process().pid()))
                    .start()
                    .waitFor();
            holder.finish().ok();
            Reply next = api.delete(ops, PATH + volid);
            assertThat(task(ops, next.data().asText(), "status")
                            .get("exitstatus")
                            .asText())
                    .isEqualTo("OK");
            assertThat(sandbox.resolve("store/images/305/vm-305-disk-0.raw")).doesNotExist();
        } finally {
            client.shutdownNow();
            if (holder.process().isAlive()) {
                holder.process().destroyForcibly();
                holder.finish();
            }
        }
    }
}
