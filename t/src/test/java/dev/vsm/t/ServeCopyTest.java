package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve}'s copy of a volume ({@code POST .../content/{volume}} with {@code target}, pve's
 * {@code copy}), over real HTTPS with the real qemu-img: a task whose UPID is returned, the new
 * volume the bytes of the source, raw or converted to qcow2; refusals (not root, a target on
 * another storage or node, a bad id) with their status and nothing made; a target that exists
 * fails the task and is left as it was; the task list ({@code GET /nodes/{node}/tasks}) with pve's
 * filters; and proxmoxer, unchanged, copying.
 */
class ServeCopyTest {
    private static final String NODE = "testnode";
    private static final String PATH = "/nodes/" + NODE + "/storage/store/content/";

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    static int port;
    /** root@pam!full: root, no privilege separation. */
    static String root;
    /** ops@pve!all: every Datastore privilege on /, but not root: pve's copy is root's alone. */
    static String ops;

    static byte[] data;

    @BeforeAll
    static void serve() throws Exception {
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        vsm.writeConfig("storages:\n"
                + "  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images]\n"
                + "  other:\n    type: dir\n    path: " + sandbox.resolve("other")
                + "\n    content: [images]\n");
        root = ServeProcess.token(vsm, "root@pam", "full", "--privsep", "0");
        ops = ServeProcess.token(vsm, "ops@pve", "all", "--privsep", "0");
        vsm.run(
                        "acl",
                        "modify",
                        "/",
                        "--users",
                        "ops@pve",
                        "--privs",
                        "Datastore.Allocate,Datastore.AllocateSpace,Datastore.Audit,Datastore.AllocateTemplate")
                .ok();
        vsm.run("alloc", "store", "100", "vm-100-disk-0.raw", "1M").ok();
        data = new byte[1024 * 1024];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + i / 4096);
        }
        Files.write(sandbox.resolve("store/images/100/vm-100-disk-0.raw"), data);
        server = ServeProcess.start(vsm);
        port = server.port();
        api = server.client();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static JsonNode task(String upid, String what) {
        Reply r = api.get(root, "/nodes/" + NODE + "/tasks/" + upid + "/" + what);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.data();
    }

    /** The storage's files, by their paths in it (the sandbox's own path holds random digits). */
    private static List<String> files() throws IOException {
        Path store = sandbox.resolve("store");
        try (Stream<Path> walk = Files.walk(store)) {
            return walk.filter(Files::isRegularFile)
                    .map(f -> store.relativize(f).toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aVolumeIsCopiedAsATaskRawAndConverted() throws Exception {
        Reply raw = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=store:101/vm-101-disk-0.raw");
        assertThat(raw.status()).as(raw.body()).isEqualTo(200);
        String upid = raw.data().asText();
        assertThat(upid).matches("UPID:" + NODE + ":[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::root@pam!full:");
        assertThat(task(upid, "status").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(task(upid, "log").toString())
                .contains("copy 'store:100/vm-100-disk-0.raw' to 'store:101/vm-101-disk-0.raw'", "TASK OK");
        assertThat(Files.readAllBytes(sandbox.resolve("store/images/101/vm-101-disk-0.raw")))
                .isEqualTo(data);

        // a name on the path's storage, as pve takes it; the name's format is the copy's
        Reply qcow2 = api.post(root, PATH + "100%2Fvm-100-disk-0.raw", "target=100/vm-100-disk-1.qcow2");
        assertThat(qcow2.status()).as(qcow2.body()).isEqualTo(200);
        assertThat(task(qcow2.data().asText(), "status").get("exitstatus").asText())
                .isEqualTo("OK");
        Reply info = api.get(root, PATH + "store:100/vm-100-disk-1.qcow2");
        assertThat(info.data().get("format").asText()).isEqualTo("qcow2");
        assertThat(info.data().get("size").asLong()).isEqualTo(data.length);
        HostTools.Result compare = HostTools.run(
                Map.of(),
                "qemu-img",
                "compare",
                "-f",
                "raw",
                "-F",
                "qcow2",
                sandbox.resolve("store/images/100/vm-100-disk-0.raw").toString(),
                sandbox.resolve("store/images/100/vm-100-disk-1.qcow2").toString());
        assertThat(compare.exit()).as(compare.out() + compare.err()).isZero();
    }

    @Test
    void refusedCopiesMakeNothing() throws Exception {
        List<String> before = files();
        Reply notRoot = api.post(ops, PATH + "store:100/vm-100-disk-0.raw", "target=store:102/vm-102-disk-0.raw");
        assertThat(notRoot.status()).as(notRoot.body()).isEqualTo(403);
        assertThat(notRoot.json().get("message").asText()).isEqualTo("Permission check failed (user != root@pam)\n");
        Reply otherStorage = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=other:102/vm-102-disk-0.raw");
        assertThat(otherStorage.status()).as(otherStorage.body()).isEqualTo(400);
        assertThat(otherStorage.json().get("errors").has("target")).isTrue();
        Reply otherNode = api.post(
                root, PATH + "store:100/vm-100-disk-0.raw", "target=store:102/vm-102-disk-0.raw&target_node=elsewhere");
        assertThat(otherNode.status()).as(otherNode.body()).isEqualTo(400);
        Reply traversal = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=store:102/../../etc/x.raw");
        assertThat(traversal.status()).as(traversal.body()).isEqualTo(400);
        Reply noTarget = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "");
        assertThat(noTarget.status()).as(noTarget.body()).isEqualTo(400);
        assertThat(noTarget.json().get("errors").get("target").asText())
                .isEqualTo("property is missing and it is not optional");
        assertThat(files()).isEqualTo(before);
        assertThat(sandbox.resolve("other")).doesNotExist();
    }

    @Test
    void aTargetThatExistsFailsTheTaskAndIsKept() throws Exception {
        vsm.run("alloc", "store", "103", "vm-103-disk-0.raw", "1K").ok();
        Path kept = sandbox.resolve("store/images/103/vm-103-disk-0.raw");
        byte[] before = Files.readAllBytes(kept);
        Reply r = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=store:103/vm-103-disk-0.raw");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode status = task(r.data().asText(), "status");
        assertThat(status.get("status").asText()).isEqualTo("stopped");
        assertThat(status.get("exitstatus").asText()).isNotEqualTo("OK");
        assertThat(Files.readAllBytes(kept)).isEqualTo(before);
        assertThat(files()).noneMatch(f -> f.startsWith("images/103/") && !f.equals("images/103/vm-103-disk-0.raw"));
    }

    /** {@code GET /nodes/{node}/tasks}: newest first, pve's filters, each caller its own tasks (root all). */
    @Test
    void theTaskListIsFilteredAndSeenByTheStarterAndRoot() {
        String ok = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=store:105/vm-105-disk-0.raw")
                .data()
                .asText();
        String failed = api.post(root, PATH + "store:100/vm-100-disk-0.raw", "target=store:105/vm-105-disk-0.raw")
                .data()
                .asText();
        String tasks = "/nodes/" + NODE + "/tasks";
        List<String> all = upids(api.get(root, tasks + "?limit=1000"));
        assertThat(all).contains(ok, failed);
        assertThat(all.indexOf(failed)).isLessThan(all.indexOf(ok));
        JsonNode entry = api.get(root, tasks + "?limit=1").data().get(0);
        assertThat(entry.get("upid").asText()).isEqualTo(failed);
        assertThat(entry.get("type").asText()).isEqualTo("imgcopy");
        assertThat(entry.get("user").asText()).isEqualTo("root@pam!full");
        assertThat(entry.get("status").asText()).isNotEqualTo("OK");
        assertThat(entry.get("endtime").asLong())
                .isGreaterThanOrEqualTo(entry.get("starttime").asLong());
        assertThat(upids(api.get(root, tasks + "?errors=1&limit=1000")))
                .contains(failed)
                .doesNotContain(ok);
        assertThat(upids(api.get(root, tasks + "?statusfilter=ok&limit=1000")))
                .contains(ok)
                .doesNotContain(failed);
        assertThat(upids(api.get(root, tasks + "?userfilter=ROOT@PAM&typefilter=imgcopy&limit=1000")))
                .contains(ok, failed);
        assertThat(upids(api.get(root, tasks + "?typefilter=prunebackups"))).isEmpty();
        assertThat(upids(api.get(root, tasks + "?source=active"))).isEmpty();
        assertThat(upids(api.get(root, tasks + "?since=4000000000"))).isEmpty();
        assertThat(upids(api.get(root, tasks + "?start=1&limit=1"))).doesNotContain(failed);
        // pve's total: the tasks that match, before start and limit
        Reply page = api.get(root, tasks + "?typefilter=imgcopy&start=1&limit=1");
        assertThat(page.data()).hasSize(1);
        assertThat(page.json().get("total").asInt())
                .isEqualTo(upids(api.get(root, tasks + "?typefilter=imgcopy&limit=1000"))
                        .size())
                .isGreaterThanOrEqualTo(2);
        assertThat(api.get(root, tasks + "?typefilter=prunebackups")
                        .json()
                        .get("total")
                        .asInt())
                .isZero();
        // another's tasks are not listed
        assertThat(upids(api.get(ops, tasks + "?source=all"))).isEmpty();
        assertThat(api.get(root, tasks + "?source=bogus").status()).isEqualTo(400);
        assertThat(api.get(root, tasks + "?statusfilter=bogus").status()).isEqualTo(400);
        assertThat(api.get(root, "/nodes/elsewhere/tasks").status()).isEqualTo(400);
    }

    private static List<String> upids(Reply r) {
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<String> upids = new ArrayList<>();
        r.data().forEach(t -> upids.add(t.get("upid").asText()));
        return upids;
    }

    /** python3-proxmoxer 1.2, unchanged: copies a volume, reads its task's status and log, and finds it in the list. */
    @Test
    void proxmoxerCopiesAVolume() throws Exception {
        HostTools.Result run = server.proxmoxerWithToken(
                "proxmoxer-copy.py", root, "store", "store:100/vm-100-disk-0.raw", "store:104/vm-104-disk-0.raw");
        assertThat(run.exit()).as("proxmoxer: %s", run.err()).isZero();
        JsonNode got = new ObjectMapper().readTree(run.out());
        assertThat(got.get("task").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(got.get("log").toString()).contains("TASK OK");
        assertThat(got.get("tasks").get(0).asText()).isEqualTo(got.get("upid").asText());
        assertThat(got.get("listed").toString()).contains("store:104/vm-104-disk-0.raw");
        assertThat(Files.readAllBytes(sandbox.resolve("store/images/104/vm-104-disk-0.raw")))
                .isEqualTo(data);
    }
}
