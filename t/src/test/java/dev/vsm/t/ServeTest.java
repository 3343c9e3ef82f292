package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.AtOnce;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve} as a client sees it: one real server (the {@code cli/vsm} launcher, a process of
 * its own) on 127.0.0.1 and a free port, real HTTPS with the self-signed certificate it made, and
 * Java's HttpClient trusting that certificate alone. Every endpoint is compared with what
 * {@code vsm status} and {@code vsm list} say; every refusal (no token, a wrong secret, a token
 * without the privilege, a bad or traversing volume id, an oversized body) is checked to change
 * nothing. The server stops on SIGTERM.
 */
class ServeTest {
    private static final String NODE = "testnode";
    private static final int ROUNDS = 50;

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    static int port;
    /** root@pam without privilege separation: every privilege. */
    static String root;
    /** ops@pve!audit: Datastore.Audit on /storage/store only. */
    static String audit;

    static String volume;

    @BeforeAll
    static void serve() throws Exception {
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        Files.createDirectories(sandbox.resolve("store"));
        Files.createDirectories(sandbox.resolve("other"));
        vsm.writeConfig("storages:\n"
                + "  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images, iso, backup]\n"
                + "  other:\n    type: dir\n    path: " + sandbox.resolve("other") + "\n    content: [images]\n");
        volume = vsm.run("alloc", "store", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2")
                .ok()
                .out()
                .replaceAll("(?s).*'(store:[^']+)'.*", "$1");
        root = ServeProcess.token(vsm, "root@pam", "full", "--privsep", "0");
        audit = ServeProcess.token(vsm, "ops@pve", "audit");
        vsm.run("acl", "modify", "/storage/store", "--tokens", "ops@pve!audit", "--privs", "Datastore.Audit")
                .ok();
        vsm.run("acl", "modify", "/storage", "--users", "ops@pve", "--privs", "Datastore.Audit,Datastore.AllocateSpace")
                .ok();

        server = ServeProcess.start(vsm);
        port = server.port();
        api = server.client();
    }

    /** SIGTERM: the server stops (the JVM's status for it, 143) and the port is closed. */
    @AfterAll
    static void stopsOnSigterm() {
        if (server == null) {
            return;
        }
        Vsm.Result result = server.stop();
        assertThat(result.err()).doesNotContain("Exception");
        assertThat(portOpen(port)).as("the port is open after SIGTERM").isFalse();
    }

    private static boolean portOpen(int port) {
        try (Socket s = new Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2000);
            return s.isConnected();
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void versionAndNodes() throws Exception {
        Reply version = api.get(root, "/version");
        assertThat(version.status()).isEqualTo(200);
        assertThat(version.data().get("version").asText()).matches("[0-9]+\\.[0-9]+.*");
        assertThat(version.data().has("release")).isTrue();

        Reply nodes = api.get(audit, "/nodes");
        assertThat(nodes.status()).isEqualTo(200);
        assertThat(nodes.data()).hasSize(1);
        JsonNode node = nodes.data().get(0);
        assertThat(node.get("node").asText()).isEqualTo(NODE);
        assertThat(node.get("status").asText()).isEqualTo("online");
        assertThat(node.get("type").asText()).isEqualTo("node");
        try (InputStream in = Files.newInputStream(vsm.config().getParent().resolve("ssl/vsm-ssl.pem"))) {
            byte[] der = CertificateFactory.getInstance("X.509")
                    .generateCertificate(in)
                    .getEncoded();
            assertThat(node.get("ssl_fingerprint").asText())
                    .isEqualTo(HexFormat.ofDelimiter(":")
                            .withUpperCase()
                            .formatHex(MessageDigest.getInstance("SHA-256").digest(der)));
        }
    }

    @Test
    void theSelfSignedPairIsRootsAlone() throws IOException {
        Path ssl = vsm.config().getParent().resolve("ssl");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ssl)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(ssl.resolve("vsm-ssl.key"))))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(vsm.config().getParent().resolve("access.json"))))
                .isEqualTo("rw-------");
        assertThat(Files.readString(vsm.config().getParent().resolve("access.json")))
                .as("the access file keeps hashes, never a secret")
                .doesNotContain(root.substring(root.indexOf('=') + 1))
                .doesNotContain(audit.substring(audit.indexOf('=') + 1));
    }

    @Test
    void nodeStorageIndexIsWhatVsmStatusSays() {
        JsonNode status = vsm.run("status", "--output-format", "json").ok().json();
        Reply reply = api.get(root, "/nodes/" + NODE + "/storage");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.data()).hasSize(status.size());
        for (int i = 0; i < status.size(); i++) {
            JsonNode want = status.get(i);
            JsonNode got = reply.data().get(i);
            for (String field : List.of("storage", "type", "content", "active", "enabled", "shared", "total")) {
                assertThat(got.get(field))
                        .as("%s of %s", field, want.get("storage"))
                        .isEqualTo(want.get(field));
            }
            assertThat(got.has("used")).isTrue();
            assertThat(got.has("avail")).isTrue();
        }
        assertThat(storages(api.get(root, "/nodes/" + NODE + "/storage?content=iso")))
                .containsExactly("store");
        assertThat(storages(api.get(root, "/nodes/" + NODE + "/storage?storage=other&enabled=1")))
                .containsExactly("other");
        JsonNode formats = api.get(root, "/nodes/" + NODE + "/storage?storage=store&format=1")
                .data()
                .get(0);
        assertThat(formats.get("formats").get("default").asText()).isEqualTo("raw");
        assertThat(formats.get("formats").get("supported").toString()).contains("qcow2", "raw");
    }

    @Test
    void storageStatusIsWhatVsmStatusSays() {
        JsonNode want = vsm.run("status", "--storage", "store", "--output-format", "json")
                .ok()
                .json()
                .get(0);
        Reply reply = api.get(audit, "/nodes/" + NODE + "/storage/store/status");
        assertThat(reply.status()).isEqualTo(200);
        for (String field : List.of("type", "content", "active", "enabled", "shared", "total")) {
            assertThat(reply.data().get(field)).as(field).isEqualTo(want.get(field));
        }
        assertThat(reply.data().has("storage"))
                .as("pve's status has no storage field")
                .isFalse();
        Reply none = api.get(root, "/nodes/" + NODE + "/storage/nosuch/status");
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.json().get("errors").get("storage").asText()).isEqualTo("No such storage.");
    }

    @Test
    void contentIsWhatVsmListSays() {
        JsonNode list = vsm.run("list", "store", "--output-format", "json").ok().json();
        Reply reply = api.get(audit, "/nodes/" + NODE + "/storage/store/content");
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.data()).hasSize(list.size());
        for (int i = 0; i < list.size(); i++) {
            for (String field : List.of("volid", "format", "size", "vmid", "content", "ctime")) {
                assertThat(reply.data().get(i).get(field))
                        .as(field)
                        .isEqualTo(list.get(i).get(field));
            }
        }
        assertThat(api.get(audit, "/nodes/" + NODE + "/storage/store/content?content=images&vmid=100")
                        .data())
                .hasSize(1);
        assertThat(api.get(audit, "/nodes/" + NODE + "/storage/store/content?vmid=101")
                        .data())
                .isEmpty();
        assertThat(api.get(audit, "/nodes/" + NODE + "/storage/store/content?vmid=x")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void aVolumeIsWhatVsmPathAndInfoSay() {
        String path = vsm.run("path", volume).ok().out().strip();
        JsonNode info = vsm.run("info", volume, "--output-format", "json").ok().json();
        String encoded = volume.replace(":", "%3A").replace("/", "%2F");
        String relative = volume.substring("store:".length());
        for (String asked : List.of(encoded, relative)) {
            Reply reply = api.get(audit, "/nodes/" + NODE + "/storage/store/content/" + asked);
            assertThat(reply.status()).as(asked).isEqualTo(200);
            assertThat(reply.data().get("path").asText()).isEqualTo(path);
            assertThat(reply.data().get("format").asText()).isEqualTo("qcow2");
            assertThat(reply.data().get("size").asLong()).isEqualTo(1024 * 1024);
            assertThat(info.toString()).contains(reply.data().get("path").asText());
        }
    }

    @Test
    void configurationAsPveGivesIt() {
        Reply index = api.get(root, "/storage");
        assertThat(index.status()).isEqualTo(200);
        assertThat(storages(index)).containsExactlyInAnyOrder("store", "other");
        JsonNode store = api.get(root, "/storage/store").data();
        assertThat(store.get("type").asText()).isEqualTo("dir");
        assertThat(store.get("path").asText())
                .isEqualTo(sandbox.resolve("store").toString());
        assertThat(store.get("content").asText()).isEqualTo("images,iso,backup");
        assertThat(store.get("digest").asText()).matches("[0-9a-f]{40}");
        assertThat(storages(api.get(root, "/storage?type=lvm"))).isEmpty();
        // a type no plugin provides is refused (Ansible's proxmox_storage_info then fails, as on pve)
        Reply unknown = api.get(root, "/storage?type=dri");
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(400);
        assertThat(unknown.json().get("errors").get("type").asText())
                .startsWith("value 'dri' does not have a value in the enumeration '")
                .contains("dir, ", "lvm, ");
    }

    @Test
    void aTokenSeesOnlyWhatItIsGranted() {
        assertThat(storages(api.get(audit, "/nodes/" + NODE + "/storage"))).containsExactly("store");
        assertThat(storages(api.get(audit, "/storage"))).containsExactly("store");
        Reply config = api.get(audit, "/storage/store");
        assertThat(config.status()).isEqualTo(403);
        assertThat(config.json().get("message").asText())
                .isEqualTo("Permission check failed (/storage/store, Datastore.Allocate)\n");
        assertThat(api.get(audit, "/nodes/" + NODE + "/storage/other/status").status())
                .isEqualTo(403);
        assertThat(api.get(audit, "/nodes/" + NODE + "/storage/other/content").status())
                .isEqualTo(403);
    }

    @Test
    void noValidTokenIs401AndChangesNothing() {
        Map<String, String> before = Tree.snapshot(sandbox);
        String wrong = root.substring(0, root.indexOf('=') + 1) + "00000000-0000-4000-8000-000000000000";
        List<String> headers = new ArrayList<>();
        headers.add(null);
        headers.add(wrong);
        headers.add("nobody@pam!full=" + root.substring(root.indexOf('=') + 1));
        headers.add("PVEAPIToken " + root);
        headers.add("Bearer " + root.substring(root.indexOf('=') + 1));
        List<Callable<Reply>> calls = new ArrayList<>();
        for (String h : headers) {
            calls.add(() -> api.get(h, "/nodes/" + NODE + "/storage/store/content"));
            calls.add(() -> api.post(
                    h, "/nodes/" + NODE + "/storage/store/content", "vmid=102&filename=vm-102-disk-0.raw&size=1M"));
            calls.add(() -> api.delete(h, "/nodes/" + NODE + "/storage/store/content/" + volume.replace("/", "%2F")));
        }
        List<Reply> replies = AtOnce.all(calls); // each 401 comes 3 s late, as pve's
        for (int i = 0; i < replies.size(); i++) {
            assertThat(replies.get(i).status()).as("%s", headers.get(i / 3)).isEqualTo(401);
            assertThat(replies.get(i).body()).isEmpty();
        }
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    /**
     * A change refused before its body is read (no token, 413) closes the connection and says so:
     * a client that kept it for its next request got no answer at all (its DELETE is not retried).
     * The rounds run at once, each its own client and connection: a 401 comes 3 s late, as pve's.
     */
    @Test
    void aRefusedChangeLeavesNoConnectionForTheNextRequest() {
        String path = "/nodes/" + NODE + "/storage/store/content";
        String form = "vmid=102&filename=vm-102-disk-0.raw&size=1M&pad=" + "a".repeat(60 * 1024);
        List<Callable<Void>> rounds = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            int r = round;
            rounds.add(() -> {
                ApiClient client = server.client();
                assertThat(client.post(null, path, form).status())
                        .as("round %d", r)
                        .isEqualTo(401);
                assertThat(client.delete(null, path + "/" + volume.replace("/", "%2F"))
                                .status())
                        .as("round %d", r)
                        .isEqualTo(401);
                return null;
            });
        }
        AtOnce.all(rounds);
    }

    @Test
    void aTokenWithoutThePrivilegeIs403AndChangesNothing() {
        Map<String, String> before = Tree.snapshot(sandbox);
        Reply alloc = api.post(
                audit, "/nodes/" + NODE + "/storage/store/content", "vmid=102&filename=vm-102-disk-0.raw&size=1M");
        assertThat(alloc.status()).isEqualTo(403);
        assertThat(alloc.json().get("message").asText())
                .isEqualTo("Permission check failed (/storage/store, Datastore.AllocateSpace)\n");
        Reply free = api.delete(audit, "/nodes/" + NODE + "/storage/store/content/" + volume.replace("/", "%2F"));
        assertThat(free.status()).isEqualTo(403);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void aBadOrTraversingVolumeIdIs400AndChangesNothing() {
        Map<String, String> before = Tree.snapshot(sandbox);
        for (String bad : List.of(
                "..%2F..%2F..%2Fetc%2Fpasswd",
                "store%3A..%2F..%2Fetc%2Fpasswd",
                "store%3A100%2F..%2F..%2F..%2Fetc%2Fpasswd",
                "%2Fetc%2Fpasswd",
                "store%3A100%2Fvm-100-disk-0.qcow2%00",
                "store%3A",
                "other%3A100%2Fvm-100-disk-0.qcow2")) {
            Reply info = api.get(root, "/nodes/" + NODE + "/storage/store/content/" + bad);
            assertThat(info.status()).as("GET %s: %s", bad, info.body()).isEqualTo(400);
            assertThat(info.json().get("data").isNull()).isTrue();
            Reply free = api.delete(root, "/nodes/" + NODE + "/storage/store/content/" + bad);
            assertThat(free.status()).as("DELETE %s: %s", bad, free.body()).isEqualTo(400);
        }
        Reply name = api.post(
                root, "/nodes/" + NODE + "/storage/store/content", "vmid=102&filename=..%2F..%2Fx.raw&size=1M");
        assertThat(name.status()).as(name.body()).isEqualTo(400);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void anOversizedBodyIs413AndChangesNothing() {
        Map<String, String> before = Tree.snapshot(sandbox);
        String form = "vmid=102&filename=vm-102-disk-0.raw&size=1M&pad=" + "a".repeat(70 * 1024);
        for (int round = 0; round < 100; round++) {
            Reply reply = api.post(root, "/nodes/" + NODE + "/storage/store/content", form);
            assertThat(reply.status()).as("round %d", round).isEqualTo(413);
        }
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void unknownParametersAndPathsAreRefused() {
        Reply extra = api.get(root, "/nodes/" + NODE + "/storage?bogus=1");
        assertThat(extra.status()).isEqualTo(400);
        assertThat(extra.json().get("message").asText()).isEqualTo("Parameter verification failed.\n");
        assertThat(extra.json().get("errors").has("bogus")).isTrue();
        assertThat(api.get(root, "/nodes/elsewhere/storage").status()).isEqualTo(400);
        assertThat(api.get(root, "/no/such/path").status()).isEqualTo(501);
    }

    @Test
    void allocAndFreeWithThePrivilege() throws IOException {
        Reply alloc = api.post(
                root, "/nodes/" + NODE + "/storage/other/content", "vmid=103&filename=vm-103-disk-0.raw&size=1M");
        assertThat(alloc.status()).as(alloc.body()).isEqualTo(200);
        String volid = alloc.data().asText();
        assertThat(volid).isEqualTo("other:103/vm-103-disk-0.raw");
        assertThat(vsm.run("list", "other", "--output-format", "json").ok().out())
                .contains(volid);
        assertThat(Files.size(sandbox.resolve("other/images/103/vm-103-disk-0.raw")))
                .isEqualTo(1024 * 1024);

        Reply free = api.delete(
                root,
                "/nodes/" + NODE + "/storage/other/content/"
                        + volid.replace(":", "%3A").replace("/", "%2F"));
        assertThat(free.status()).as(free.body()).isEqualTo(200);
        assertThat(vsm.run("list", "other", "--output-format", "json").ok().out())
                .doesNotContain(volid);
    }

    /**
     * python3-proxmoxer 1.2, Debian's package, unchanged: a script written for pve lists the node,
     * its storages and a storage's content through vsm serve, and gets what vsm says.
     */
    @Test
    void proxmoxerListsWhatVsmSays() throws IOException {
        HostTools.Result run = server.proxmoxerWithToken("proxmoxer-list.py", root, "store");
        assertThat(run.exit()).as("proxmoxer: %s", run.err()).isZero();
        JsonNode got = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
        assertThat(got.get("nodes").get(0).get("node").asText()).isEqualTo(NODE);
        JsonNode status = vsm.run("status", "--output-format", "json").ok().json();
        assertThat(got.get("storages")).hasSize(status.size());
        for (int i = 0; i < status.size(); i++) {
            assertThat(got.get("storages").get(i).get("storage"))
                    .isEqualTo(status.get(i).get("storage"));
            assertThat(got.get("storages").get(i).get("total"))
                    .isEqualTo(status.get(i).get("total"));
        }
        JsonNode list = vsm.run("list", "store", "--output-format", "json").ok().json();
        assertThat(got.get("content")).hasSize(list.size());
        assertThat(got.get("content").get(0).get("volid")).isEqualTo(list.get(0).get("volid"));
        assertThat(got.get("status").get("type").asText()).isEqualTo("dir");
    }

    @Test
    void anUnsafeSslDirectoryOrAccessFileIsRefused() throws IOException {
        Vsm other = new Vsm(sandbox.resolve("unsafe"));
        Path ssl = Files.createDirectories(other.config().getParent().resolve("ssl"));
        Files.setPosixFilePermissions(ssl, PosixFilePermissions.fromString("rwxr-xr-x"));
        other.run("serve", "--listen", "127.0.0.1:0").badInput("mode 0700");
        assertThat(ssl).isEmptyDirectory();

        other.run("token", "add", "root@pam", "tk").ok();
        Path access = other.config().getParent().resolve("access.json");
        Files.setPosixFilePermissions(access, PosixFilePermissions.fromString("rw-r--r--"));
        String before = Files.readString(access);
        other.run("token", "add", "root@pam", "uk").badInput("may be read or changed by others");
        other.run("token", "list").badInput("chmod 600");
        assertThat(Files.readString(access)).isEqualTo(before);
        other.run("serve", "--listen", "nowhere").badInput("ADDRESS:PORT");
    }

    private static List<String> storages(Reply reply) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        reply.data().forEach(s -> ids.add(s.get("storage").asText()));
        return ids;
    }
}
