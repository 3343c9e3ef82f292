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
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve}'s changes to the configuration, over real HTTPS: {@code POST /storage},
 * {@code PUT} and {@code DELETE /storage/{storage}} with pve's {@code delete} and {@code digest}
 * and pve's answers; each refusal (no privilege, a stale digest, an unknown option or type, the
 * delete of a required option, an id that exists) with its status and the configuration file
 * byte-identical; the grants on a removed storage's path removed with it; and proxmoxer, unchanged,
 * doing it all.
 */
class ServeConfigTest {
    private static final String NODE = "testnode";

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    static int port;
    /** root@pam: every privilege. */
    static String root;
    /** admin@pve!cfg: Datastore.Allocate on /storage. */
    static String admin;
    /** ops@pve!one: Datastore.Allocate on /storage/store only, which pve does not take for a change. */
    static String one;
    /** ops@pve!audit: Datastore.Audit on /storage. */
    static String audit;

    @BeforeAll
    static void serve() throws Exception {
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        Files.createDirectories(sandbox.resolve("store"));
        vsm.writeConfig("storages:\n"
                + "  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images, iso]\n");
        root = ServeProcess.token(vsm, "root@pam", "full", "--privsep", "0");
        admin = ServeProcess.token(vsm, "admin@pve", "cfg", "--privsep", "0");
        one = ServeProcess.token(vsm, "ops@pve", "one");
        audit = ServeProcess.token(vsm, "aud@pve", "audit", "--privsep", "0");
        vsm.run("acl", "modify", "/storage", "--users", "admin@pve", "--privs", "Datastore.Allocate")
                .ok();
        vsm.run("acl", "modify", "/storage/store", "--users", "ops@pve", "--privs", "Datastore.Allocate")
                .ok();
        vsm.run("acl", "modify", "/storage/store", "--tokens", "ops@pve!one", "--privs", "Datastore.Allocate")
                .ok();
        vsm.run("acl", "modify", "/storage", "--users", "aud@pve", "--privs", "Datastore.Audit")
                .ok();
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

    private static byte[] config() throws IOException {
        return Files.readAllBytes(vsm.config());
    }

    private static String digest() {
        Reply r = api.get(root, "/storage/store");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.data().get("digest").asText();
    }

    @Test
    void aStorageIsCreatedChangedWithItsDigestAndRemoved() throws Exception {
        Path path = sandbox.resolve("made");
        Reply created =
                api.post(admin, "/storage", "storage=made&type=dir&path=" + path + "&content=iso,images&shared=1");
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        assertThat(created.json().toString()).isEqualTo("{\"data\":{\"storage\":\"made\",\"type\":\"dir\"}}");

        Reply read = api.get(admin, "/storage/made");
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        assertThat(read.data().get("path").asText()).isEqualTo(path.toString());
        assertThat(read.data().get("shared").asInt()).isEqualTo(1);
        assertThat(read.data().get("content").asText()).isEqualTo("iso,images");

        vsm.run("acl", "modify", "/storage/made", "--users", "aud@pve", "--privs", "Datastore.Audit")
                .ok();
        Reply updated = api.put(
                admin,
                "/storage/made",
                "content=backup&delete=shared&digest="
                        + read.data().get("digest").asText());
        assertThat(updated.status()).as(updated.body()).isEqualTo(200);
        assertThat(updated.json().toString()).isEqualTo("{\"data\":{\"storage\":\"made\",\"type\":\"dir\"}}");
        JsonNode after = api.get(admin, "/storage/made").data();
        assertThat(after.get("content").asText()).isEqualTo("backup");
        assertThat(after.has("shared")).isFalse();
        assertThat(after.get("digest").asText())
                .isNotEqualTo(read.data().get("digest").asText());
        assertThat(vsm.run("status", "--storage", "made").ok().out()).contains("made");

        Reply removed = api.delete(admin, "/storage/made");
        assertThat(removed.status()).as(removed.body()).isEqualTo(200);
        assertThat(removed.json().toString()).isEqualTo("{\"data\":null}");
        assertThat(Files.readString(vsm.config())).doesNotContain("made:");
        // pve's remove_storage_access: a storage made again under the name gets no old grant
        assertThat(Files.readString(vsm.config().resolveSibling("access.json")))
                .doesNotContain("/storage/made")
                .contains("/storage/store");
    }

    @Test
    void withoutThePrivilegeEachChangeIs403AndChangesNothing() throws Exception {
        byte[] before = config();
        Reply create = api.post(audit, "/storage", "storage=nope&type=dir&path=" + sandbox.resolve("nope"));
        assertThat(create.status()).as(create.body()).isEqualTo(403);
        assertThat(create.json().get("message").asText())
                .isEqualTo("Permission check failed (/storage, Datastore.Allocate)\n");
        assertThat(api.put(audit, "/storage/store", "content=iso").status()).isEqualTo(403);
        assertThat(api.delete(audit, "/storage/store").status()).isEqualTo(403);
        // Datastore.Allocate on the storage alone: pve checks /storage for every change
        Reply own = api.put(one, "/storage/store", "content=iso");
        assertThat(own.status()).as(own.body()).isEqualTo(403);
        assertThat(api.delete(one, "/storage/store").status()).isEqualTo(403);
        assertThat(api.post(one, "/storage", "storage=nope&type=dir&path=/srv").status())
                .isEqualTo(403);
        // no token at all
        assertThat(api.delete(null, "/storage/store").status()).isEqualTo(401);
        assertThat(config()).isEqualTo(before);
    }

    @Test
    void aStaleDigestIsRefusedAndTheFileIsByteIdentical() throws Exception {
        String read = digest();
        vsm.run("set", "store", "--content", "images,iso,vztmpl").ok();
        byte[] before = config();
        Reply stale = api.put(admin, "/storage/store", "content=backup&digest=" + read);
        assertThat(stale.status()).as(stale.body()).isEqualTo(400);
        assertThat(stale.json().get("message").asText())
                .contains(
                        "update storage failed: detected modified configuration - file changed by other user? Try again.");
        assertThat(config()).isEqualTo(before);
        Reply fresh = api.put(admin, "/storage/store", "content=images,iso&digest=" + digest());
        assertThat(fresh.status()).as(fresh.body()).isEqualTo(200);
    }

    @Test
    void badInputIs400AndChangesNothing() throws Exception {
        byte[] before = config();
        String bad = sandbox.resolve("bad").toString();
        Map<String, String> refused = Map.of(
                "storage=bad1&type=dir&path=" + bad + "&bogus=1",
                "unexpected property 'bogus'",
                "storage=bad2&type=dir&path=" + bad + "&vgname=vg",
                "unexpected property 'vgname'",
                "storage=bad3&type=nosuchtype&path=" + bad,
                "unknown storage type 'nosuchtype'",
                "storage=bad4&type=dir&content=iso",
                "missing value for required option 'path'",
                "storage=bad5&type=dir&path=" + bad + "&content=bogus",
                "content",
                "storage=store&type=dir&path=" + bad,
                "storage ID 'store' already defined",
                "storage=x&type=dir&path=" + bad,
                "storage");
        refused.forEach((form, message) -> {
            Reply r = api.post(admin, "/storage", form);
            assertThat(r.status()).as(form + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(form).contains(message);
        });
        Reply noType = api.post(admin, "/storage", "storage=bad6&path=" + bad);
        assertThat(noType.status()).isEqualTo(400);
        assertThat(noType.json().get("errors").get("type").asText())
                .isEqualTo("property is missing and it is not optional");
        Map<String, String> updates = Map.of(
                "delete=path", "unable to delete required option 'path'",
                "delete=bogus", "no such option 'bogus'",
                "content=iso&delete=content", "cannot set and delete property 'content' at the same time!",
                "type=lvm", "can't change value of fixed parameter 'type'",
                "vgname=vg", "unexpected property 'vgname'",
                "content=bogus", "content");
        updates.forEach((form, message) -> {
            Reply r = api.put(admin, "/storage/store", form);
            assertThat(r.status()).as(form + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(form).contains(message);
        });
        Reply missing = api.put(admin, "/storage/nosuch", "content=iso");
        assertThat(missing.status()).as(missing.body()).isEqualTo(400);
        assertThat(missing.body()).contains("storage 'nosuch' does not exist");
        Reply gone = api.delete(admin, "/storage/nosuch");
        assertThat(gone.status()).as(gone.body()).isEqualTo(400);
        assertThat(gone.body()).contains("delete storage failed: storage 'nosuch' does not exist");
        assertThat(config()).isEqualTo(before);
        assertThat(sandbox.resolve("bad")).doesNotExist();
    }

    /** python3-proxmoxer 1.2, unchanged: create, read, update with the digest read, list by type, remove. */
    @Test
    void proxmoxerCreatesUpdatesAndRemovesAStorage() throws Exception {
        Path path = sandbox.resolve("prox");
        HostTools.Result run = server.proxmoxerWithToken("proxmoxer-config.py", root, "prox", path.toString());
        assertThat(run.exit()).as("proxmoxer: %s", run.err()).isZero();
        JsonNode got = new ObjectMapper().readTree(run.out());
        assertThat(got.get("created").toString()).isEqualTo("{\"storage\":\"prox\",\"type\":\"dir\"}");
        assertThat(got.get("read").get("path").asText()).isEqualTo(path.toString());
        assertThat(got.get("read").get("shared").asInt()).isEqualTo(1);
        assertThat(got.get("updated").toString()).isEqualTo("{\"storage\":\"prox\",\"type\":\"dir\"}");
        assertThat(got.get("after").get("content").asText()).isEqualTo("backup");
        assertThat(got.get("after").has("shared")).isFalse();
        assertThat(got.get("listed").toString()).contains("\"prox\"", "\"store\"");
        assertThat(got.get("removed").isNull()).isTrue();
        assertThat(got.get("left").toString()).doesNotContain("prox");
        assertThat(Files.readString(vsm.config())).doesNotContain("prox");
    }
}
