package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve}'s changes beyond alloc and free, over real HTTPS: uploads of an ISO and a
 * container template ({@code POST .../upload}, multipart, streamed to a temporary in the storage),
 * with and without a checksum; every refusal (a wrong checksum, a name that is a path or has the
 * wrong extension, no privilege, a body over the server's {@code --max-upload}, an ISO that is an
 * image naming a host file) leaves nothing behind, no temporary either; the task an upload
 * returns, seen by its starter and root only; a backup's notes and protection
 * ({@code PUT .../content/{volume}}) read back through {@code GET .../content}; and proxmoxer,
 * unchanged, doing all of it.
 */
class ServeUploadTest {
    private static final String NODE = "testnode";
    private static final String BACKUP = "vzdump-qemu-100-2024_01_02-03_04_05.vma.zst";

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    static int port;
    /** root@pam: every privilege. */
    static String root;
    /** up@pve!up: Datastore.AllocateTemplate, AllocateSpace and Audit on /storage. */
    static String uploader;
    /** ops@pve!audit: Datastore.Audit on /storage. */
    static String audit;
    /** root@pam!sep: privilege separation, no grants. */
    static String rootSeparated;

    @BeforeAll
    static void serve() throws Exception {
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        Files.createDirectories(sandbox.resolve("store/dump"));
        Files.writeString(sandbox.resolve("store/dump/" + BACKUP), "a backup");
        Files.createDirectories(sandbox.resolve("dumps/dump"));
        for (String day : List.of("01", "02", "03")) {
            Files.writeString(sandbox.resolve("dumps/dump/vzdump-qemu-200-2024_01_" + day + "-00_00_00.vma.zst"), day);
        }
        vsm.writeConfig("storages:\n"
                + "  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images, iso, vztmpl, backup]\n"
                + "  dumps:\n    type: dir\n    path: " + sandbox.resolve("dumps")
                + "\n    content: [backup]\n");
        root = ServeProcess.token(vsm, "root@pam", "full", "--privsep", "0");
        uploader = ServeProcess.token(vsm, "up@pve", "up", "--privsep", "0");
        audit = ServeProcess.token(vsm, "ops@pve", "audit", "--privsep", "0");
        rootSeparated = ServeProcess.token(vsm, "root@pam", "sep");
        vsm.run(
                        "acl",
                        "modify",
                        "/storage",
                        "--users",
                        "up@pve",
                        "--privs",
                        "Datastore.AllocateTemplate,Datastore.AllocateSpace,Datastore.Audit")
                .ok();
        vsm.run("acl", "modify", "/storage", "--users", "ops@pve", "--privs", "Datastore.Audit")
                .ok();
        server = ServeProcess.start(vsm, "--max-upload", "1");
        port = server.port();
        api = server.client();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static byte[] bytes(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private static Reply upload(String token, Map<String, String> fields, String name, byte[] data, boolean chunked) {
        return api.upload(token, "/nodes/" + NODE + "/storage/store/upload", fields, name, data, chunked);
    }

    private static Map<String, String> fields(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static JsonNode task(String token, String upid, String what) {
        Reply r = api.get(token, "/nodes/" + NODE + "/tasks/" + upid + "/" + what);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.data();
    }

    /** Every file below the storage: no temporary may be left. */
    private static List<String> files() throws IOException {
        try (Stream<Path> walk = Files.walk(sandbox.resolve("store"))) {
            return walk.filter(Files::isRegularFile)
                    .map(p -> sandbox.resolve("store").relativize(p).toString())
                    .sorted()
                    .toList();
        }
    }

    @Test
    void anIsoAndATemplateAreUploadedWithAndWithoutAChecksum() throws Exception {
        byte[] iso = bytes(300 * 1024, 1);
        Reply plain = upload(uploader, fields("content", "iso"), "plain.iso", iso, false);
        assertThat(plain.status()).as(plain.body()).isEqualTo(200);
        String upid = plain.data().asText();
        assertThat(upid).matches("UPID:" + NODE + ":[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:imgcopy::up@pve!up:");
        assertThat(Files.readAllBytes(sandbox.resolve("store/template/iso/plain.iso")))
                .isEqualTo(iso);

        JsonNode status = task(uploader, upid, "status");
        assertThat(status.get("status").asText()).isEqualTo("stopped");
        assertThat(status.get("exitstatus").asText()).isEqualTo("OK");
        assertThat(status.get("type").asText()).isEqualTo("imgcopy");
        assertThat(status.get("user").asText()).isEqualTo("up@pve!up");
        assertThat(status.get("node").asText()).isEqualTo(NODE);
        assertThat(status.get("upid").asText()).isEqualTo(upid);
        assertThat(Long.toHexString(status.get("pid").asLong()).toUpperCase())
                .isEqualTo(upid.split(":")[2].replaceFirst("^0+", ""));
        assertThat(status.has("pstart") && status.has("starttime")).isTrue();
        JsonNode log = task(uploader, upid, "log");
        assertThat(log.get(0).get("n").asInt()).isEqualTo(1);
        assertThat(log.get(log.size() - 1).get("t").asText()).isEqualTo("TASK OK");
        assertThat(task(root, upid, "status").get("exitstatus").asText()).isEqualTo("OK");
        Reply other = api.get(audit, "/nodes/" + NODE + "/tasks/" + upid + "/status");
        assertThat(other.status()).as("another user's task").isEqualTo(403);
        assertThat(api.get(uploader, "/nodes/" + NODE + "/tasks/UPID:nonsense/status")
                        .status())
                .isEqualTo(400);

        byte[] tmpl = bytes(200 * 1024, 2);
        Reply checked = upload(
                uploader,
                fields(
                        "content",
                        "vztmpl",
                        "checksum-algorithm",
                        "sha256",
                        "checksum",
                        sha256(tmpl).toUpperCase()),
                "debian-12-standard_12.2-1_amd64.tar.gz",
                tmpl,
                true);
        assertThat(checked.status()).as(checked.body()).isEqualTo(200);
        assertThat(task(uploader, checked.data().asText(), "status")
                        .get("exitstatus")
                        .asText())
                .isEqualTo("OK");
        assertThat(Files.readAllBytes(sandbox.resolve("store/template/cache/debian-12-standard_12.2-1_amd64.tar.gz")))
                .isEqualTo(tmpl);

        Reply listed = api.get(audit, "/nodes/" + NODE + "/storage/store/content");
        assertThat(listed.body())
                .contains("store:iso/plain.iso", "store:vztmpl/debian-12-standard_12.2-1_amd64.tar.gz");
        // as pve, an item has no field without a value (vsm list's nulls): an ISO has no owner
        JsonNode isoItem = null;
        for (JsonNode item : listed.data()) {
            if (item.get("volid").asText().equals("store:iso/plain.iso")) {
                isoItem = item;
            }
        }
        assertThat(isoItem).isNotNull();
        assertThat(isoItem.get("size").asLong()).isEqualTo(iso.length);
        assertThat(isoItem.has("vmid") || isoItem.has("parent") || isoItem.has("used"))
                .as("%s", isoItem)
                .isFalse();
        // a file that exists is never replaced
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        Reply again = upload(uploader, fields("content", "iso"), "plain.iso", bytes(10, 3), false);
        assertThat(again.status()).as(again.body()).isEqualTo(400);
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }

    @Test
    void aWrongChecksumFailsTheTaskAndKeepsNothing() throws Exception {
        List<String> before = files();
        byte[] iso = bytes(100 * 1024, 4);
        Reply reply = upload(
                uploader,
                fields("content", "iso", "checksum-algorithm", "md5", "checksum", "0".repeat(32)),
                "wrong.iso",
                iso,
                false);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode status = task(uploader, reply.data().asText(), "status");
        assertThat(status.get("status").asText()).isEqualTo("stopped");
        assertThat(status.get("exitstatus").asText())
                .startsWith("checksum mismatch: got '")
                .endsWith("' != expect '" + "0".repeat(32) + "'");
        JsonNode log = task(uploader, reply.data().asText(), "log");
        assertThat(log.get(log.size() - 1).get("t").asText()).startsWith("TASK ERROR: checksum mismatch");
        assertThat(files()).isEqualTo(before);
    }

    /** An ISO that is a qcow2 image whose backing file is a host file: pve's assert_iso_content refuses it. */
    @Test
    void anIsoThatNamesAHostFileFailsTheTaskAndKeepsNothing() throws Exception {
        Path evil = sandbox.resolve("evil.qcow2");
        HostTools.Result made = HostTools.run(
                Map.of(),
                "qemu-img",
                "create",
                "-f",
                "qcow2",
                "-b",
                "/etc/hostname",
                "-F",
                "raw",
                evil.toString(),
                "1M");
        assertThat(made.exit()).as(made.err()).isZero();
        List<String> before = files();
        Reply reply = upload(uploader, fields("content", "iso"), "evil.iso", Files.readAllBytes(evil), false);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode status = task(uploader, reply.data().asText(), "status");
        assertThat(status.get("exitstatus").asText()).contains("backing");
        assertThat(files()).isEqualTo(before);
    }

    @Test
    void refusedUploadsAreTheRightStatusAndKeepNothing() throws Exception {
        Map<String, String> before = Tree.snapshot(sandbox);
        byte[] iso = bytes(10 * 1024, 5);
        record Case(String token, Map<String, String> fields, String name, int status, String says) {}
        List<Case> cases = List.of(
                new Case(audit, fields("content", "iso"), "x.iso", 403, "Datastore.AllocateTemplate"),
                new Case(null, fields("content", "iso"), "x.iso", 401, ""),
                new Case(uploader, fields("content", "iso"), "../../../etc/x.iso", 400, "is a path"),
                new Case(uploader, fields("content", "iso"), "..\\x.iso", 400, "is a path"),
                new Case(uploader, fields("content", "iso"), "x.txt", 400, ""),
                new Case(uploader, fields("content", "vztmpl"), "x.iso", 400, ""),
                new Case(uploader, fields("content", "images"), "x.raw", 400, "enumeration"),
                new Case(uploader, fields(), "x.iso", 400, "content"),
                new Case(uploader, fields("content", "iso", "checksum", "00"), "x.iso", 400, "checksum-algorithm"),
                new Case(
                        uploader,
                        fields("content", "iso", "checksum", "00", "checksum-algorithm", "crc32"),
                        "x.iso",
                        400,
                        "crc32"),
                new Case(uploader, fields("content", "iso", "bogus", "1"), "x.iso", 400, "bogus"));
        for (Case c : cases) {
            for (boolean chunked : List.of(false, true)) {
                Reply r = upload(c.token(), c.fields(), c.name(), iso, chunked);
                assertThat(r.status()).as("%s %s: %s", c, chunked, r.body()).isEqualTo(c.status());
                assertThat(r.body()).as("%s", c).contains(c.says());
            }
        }
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    /**
     * --max-upload 1: a body over 1 MiB is 413, refused at once when its length is known, else once
     * it passes it; the client, still sending the rest, gets the answer every time (20 rounds: a
     * server that closed with the rest unread lost it to a reset now and then).
     */
    @Test
    void aBodyOverTheLimitIs413AndKeepsNothing() throws Exception {
        List<String> before = files();
        byte[] big = bytes(3 * 1024 * 1024 / 2, 6);
        for (int round = 0; round < 20; round++) {
            for (boolean chunked : List.of(false, true)) {
                Reply r = upload(uploader, fields("content", "iso"), "big.iso", big, chunked);
                assertThat(r.status())
                        .as("round %d, chunked %s: %s", round, chunked, r.body())
                        .isEqualTo(413);
                assertThat(files()).as("chunked %s", chunked).isEqualTo(before);
            }
        }
        Reply fine = upload(uploader, fields("content", "iso"), "small enough.iso", bytes(900 * 1024, 7), true);
        assertThat(fine.status()).as(fine.body()).isEqualTo(200);
        assertThat(sandbox.resolve("store/template/iso/small_enough.iso")).exists();
    }

    @Test
    void notesAndProtectionAreSetAndReadBack() {
        String path = "/nodes/" + NODE + "/storage/store/content/";
        String volume = "store%3Abackup%2F" + BACKUP;
        Map<String, String> before = Tree.snapshot(sandbox);
        Reply refused = put(audit, path + volume, "notes=x&protected=1");
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        assertThat(refused.json().get("message").asText())
                .isEqualTo("Permission check failed (/storage/store, Datastore.Allocate)\n");
        assertThat(put(root, path + volume, "protected=maybe").status()).isEqualTo(400);
        assertThat(put(root, path + "store%3Abackup%2F..%2F..%2Fx", "notes=x").status())
                .isEqualTo(400);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        Reply set = put(root, path + volume, "notes=nightly+run%0Asecond+line&protected=1");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        assertThat(set.data().isNull()).isTrue();
        JsonNode item = backupItem();
        // pve lists a backup's first line of notes, and keeps them all
        assertThat(item.get("notes").asText()).isEqualTo("nightly run");
        assertThat(sandbox.resolve("store/dump/" + BACKUP + ".notes")).content().isEqualTo("nightly run\nsecond line");
        assertThat(item.get("protected").asInt()).isEqualTo(1);
        // as pve: the free is a task, and it fails
        Reply free = api.delete(root, path + volume);
        assertThat(free.status()).as(free.body()).isEqualTo(200);
        assertThat(task(root, free.data().asText(), "status").get("exitstatus").asText())
                .as("a protected backup is not freed")
                .contains("protected");
        assertThat(sandbox.resolve("store/dump/" + BACKUP)).exists();

        assertThat(put(root, path + "backup%2F" + BACKUP, "protected=0&notes=").status())
                .isEqualTo(200);
        item = backupItem();
        assertThat(item.has("protected")).isFalse();
        assertThat(item.has("notes")).isFalse();
    }

    /** A privilege-separated token of root@pam holds only its grants: it does not see another's task. */
    @Test
    void aTaskIsSeenByItsStarterAndRootOnly() {
        Reply up = upload(uploader, fields("content", "iso"), "seen.iso", bytes(1024, 9), false);
        assertThat(up.status()).as(up.body()).isEqualTo(200);
        String upid = up.data().asText();
        assertThat(task(root, upid, "status").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(api.get(audit, "/nodes/" + NODE + "/tasks/" + upid + "/log").status())
                .isEqualTo(403);
        assertThat(api.get(rootSeparated, "/nodes/" + NODE + "/tasks/" + upid + "/status")
                        .status())
                .isEqualTo(403);
        String unknown = upid.replaceFirst(":imgcopy:", ":vzdump:");
        assertThat(api.get(root, "/nodes/" + NODE + "/tasks/" + unknown + "/status")
                        .status())
                .isEqualTo(500);
        assertThat(task(uploader, upid, "log?start=1&limit=1")).hasSize(1);
    }

    /** GET previews a prune and removes nothing; DELETE prunes as a task; each refusal changes nothing. */
    @Test
    void prunebackupsPreviewsAndPrunes() {
        String path = "/nodes/" + NODE + "/storage/dumps/prunebackups";
        Map<String, String> before = Tree.snapshot(sandbox);
        Reply preview = api.get(audit, path + "?prune-backups=keep-last%3D1&vmid=200&type=qemu");
        assertThat(preview.status()).as(preview.body()).isEqualTo(200);
        assertThat(preview.data()).hasSize(3);
        Map<String, String> marks = new LinkedHashMap<>();
        preview.data()
                .forEach(e -> marks.put(e.get("volid").asText(), e.get("mark").asText()));
        assertThat(marks)
                .containsEntry("dumps:backup/vzdump-qemu-200-2024_01_03-00_00_00.vma.zst", "keep")
                .containsEntry("dumps:backup/vzdump-qemu-200-2024_01_02-00_00_00.vma.zst", "remove")
                .containsEntry("dumps:backup/vzdump-qemu-200-2024_01_01-00_00_00.vma.zst", "remove");
        assertThat(preview.data().get(0).get("vmid").asInt()).isEqualTo(200);
        assertThat(preview.data().get(0).get("type").asText()).isEqualTo("qemu");

        assertThat(api.delete(audit, path + "?prune-backups=keep-last%3D1").status())
                .isEqualTo(403);
        assertThat(api.get(root, path + "?prune-backups=keep-last%3Dx").status())
                .isEqualTo(400);
        assertThat(api.delete(root, path + "?prune-backups=keep-last%3Dx").status())
                .isEqualTo(400);
        assertThat(api.delete(root, path).status())
                .as("no options given and none configured")
                .isEqualTo(400);
        assertThat(api.get(root, path + "?type=pve").status()).isEqualTo(400);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        Reply prune = api.delete(root, path + "?prune-backups=keep-last%3D1&vmid=200");
        assertThat(prune.status()).as(prune.body()).isEqualTo(200);
        String upid = prune.data().asText();
        assertThat(upid).contains(":prunebackups:200@dumps:root@pam!full:");
        assertThat(task(root, upid, "status").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(task(root, upid, "log").toString())
                .contains("removing backup 'dumps:backup/vzdump-qemu-200-2024_01_01-00_00_00.vma.zst'");
        assertThat(sandbox.resolve("dumps/dump").toFile().list())
                .containsExactly("vzdump-qemu-200-2024_01_03-00_00_00.vma.zst");
    }

    private static JsonNode backupItem() {
        Reply list = api.get(audit, "/nodes/" + NODE + "/storage/store/content?content=backup");
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(list.data()).hasSize(1);
        return list.data().get(0);
    }

    private static Reply put(String token, String path, String form) {
        return api.send("PUT", path, form, Map.of("Authorization", "PVEAPIToken=" + token));
    }

    /**
     * python3-proxmoxer 1.2, unchanged: lists nodes, storages and content, allocates a disk, sets
     * a backup's notes, uploads an ISO, reads the task's status, and deletes the disk and the ISO.
     */
    @Test
    void proxmoxerUploadsSetsNotesAndReadsTheTask() throws Exception {
        byte[] iso = bytes(64 * 1024, 8);
        Path file = sandbox.resolve("proxmoxer.iso");
        Files.write(file, iso);
        HostTools.Result run = server.proxmoxerWithToken(
                "proxmoxer-upload.py", root, "store", "store:backup/" + BACKUP, file.toString());
        assertThat(run.exit()).as("proxmoxer: %s", run.err()).isZero();
        JsonNode got = new ObjectMapper().readTree(run.out());
        assertThat(got.get("node").asText()).isEqualTo(NODE);
        assertThat(got.get("storages").toString()).contains("\"store\"");
        assertThat(got.get("volid").asText()).isEqualTo("store:104/vm-104-disk-0.raw");
        assertThat(got.get("notes").asText()).isEqualTo("set by proxmoxer");
        assertThat(got.get("task").get("status").asText()).isEqualTo("stopped");
        assertThat(got.get("task").get("exitstatus").asText()).isEqualTo("OK");
        assertThat(got.get("listed").toString()).contains("store:iso/proxmoxer.iso", "store:104/vm-104-disk-0.raw");
        assertThat(got.get("after").toString()).doesNotContain("proxmoxer.iso", "vm-104-disk-0");
        assertThat(sandbox.resolve("store/template/iso/proxmoxer.iso")).doesNotExist();
        assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
                .isEqualTo(new String(iso, StandardCharsets.ISO_8859_1));
    }
}
