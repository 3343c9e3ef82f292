package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ansible 7.7's {@code community.general.proxmox_storage_info} and {@code proxmox_template}
 * (Debian's package {@code ansible}), unchanged, run by {@code ansible-playbook} against
 * {@code vsm serve} on 127.0.0.1 as playbooks written for Proxmox VE run them
 * ({@code t/clients/ansible-proxmox.yml}): once with an API token, once with a password, each
 * checking the server's certificate (requests trusts the one {@code REQUESTS_CA_BUNDLE} names). The
 * first run lists the storages (all, one by name, by type) and uploads an ISO and a container
 * template, the second deletes them; each run's second template play must change nothing, and
 * {@code vsm list} must show the files after the first and not after the second.
 */
@SlowTest
class ServeAnsibleTest {
    private static final String NODE = "ansiblenode";
    private static final String PASSWORD = "ansible's password";
    private static final Path PLAYBOOK = Vsm.HOME.resolve("t/clients/ansible-proxmox.yml");
    private static final Path INVENTORY = Vsm.HOME.resolve("t/clients/ansible-inventory.ini");
    private static final Path ANSIBLE_PLAYBOOK = Path.of("/usr/bin/ansible-playbook");
    private static final Path MODULES =
            Path.of("/usr/lib/python3/dist-packages/ansible_collections/community/general/plugins/modules");
    private static final long TIMEOUT_SECONDS = 300;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static int port;
    static Path certificate;
    /** deploy@pve!ansible: Audit, Allocate and AllocateTemplate on /storage, as its user. */
    static String token;

    @BeforeAll
    static void serve() throws Exception {
        if (!Files.isExecutable(ANSIBLE_PLAYBOOK)
                || !Files.isRegularFile(MODULES.resolve("proxmox_template.py"))
                || !Files.isRegularFile(MODULES.resolve("proxmox_storage_info.py"))) {
            throw HostTools.unavailable("ansible with community.general (apt-get install ansible; t/run-tests does)");
        }
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        Files.createDirectories(sandbox.resolve("store"));
        Files.createDirectories(sandbox.resolve("disks"));
        vsm.writeConfig("storages:\n"
                + "  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [iso, vztmpl, backup]\n    prune-backups: keep-last=3,keep-weekly=2\n"
                + "    nodes: [" + NODE + "]\n"
                + "  disks:\n    type: dir\n    path: " + sandbox.resolve("disks") + "\n    content: [images]\n"
                + "  vg:\n    type: lvm\n    vgname: vsm-ansible-none\n    content: [images]\n    shared: true\n");
        JsonNode made = vsm.run("token", "add", "deploy@pve", "ansible", "--privsep", "0", "--output-format", "json")
                .ok()
                .json();
        token = made.get("value").asText();
        vsm.shell("printf '%s\\n' \"" + PASSWORD + "\" | vsm user passwd play@pve")
                .ok();
        for (String user : List.of("deploy@pve", "play@pve")) {
            vsm.run(
                            "acl",
                            "modify",
                            "/storage",
                            "--users",
                            user,
                            "--privs",
                            "Datastore.Audit,Datastore.Allocate,Datastore.AllocateTemplate")
                    .ok();
        }
        server = ServeProcess.start(vsm);
        port = server.port();
        certificate = server.certificate();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void withAToken() throws Exception {
        Map<String, Object> auth = new LinkedHashMap<>();
        auth.put("api_user", "deploy@pve");
        auth.put("api_token_id", "ansible");
        auth.put("api_token_secret", token);
        uploadListAndDelete(auth, "token");
    }

    @Test
    void withAPassword() throws Exception {
        Map<String, Object> auth = new LinkedHashMap<>();
        auth.put("api_user", "play@pve");
        auth.put("api_password", PASSWORD);
        uploadListAndDelete(auth, "password");
    }

    /** The two runs of the playbook, its files named after the scenario so that the two never meet. */
    private static void uploadListAndDelete(Map<String, Object> auth, String scenario) throws Exception {
        Path iso = write("install-" + scenario + ".iso", 256 * 1024);
        Path vztmpl = write("debian-12-" + scenario + "_12.2-1_amd64.tar.gz", 96 * 1024);
        Map<String, Object> vars = new LinkedHashMap<>(auth);
        vars.put("api_host", "127.0.0.1:" + port);
        vars.put("node", NODE);
        vars.put("storage", "store");
        vars.put("storage_type", "lvm");
        vars.put("iso", iso.toString());
        vars.put("vztmpl", vztmpl.toString());
        Path varsFile = sandbox.resolve("vars-" + scenario + ".json");
        Files.writeString(varsFile, "", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(varsFile, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(varsFile, JSON.writeValueAsString(vars), StandardCharsets.UTF_8);
        String isoVolid = "store:iso/" + iso.getFileName();
        String vztmplVolid = "store:vztmpl/" + vztmpl.getFileName();

        Map<String, JsonNode> present = playbook(varsFile, "present");
        storageInfo(present);
        assertThat(present.get("templates present / an ISO present")
                        .get("changed")
                        .asBoolean())
                .isTrue();
        assertThat(present.get("templates present / a container template present")
                        .get("changed")
                        .asBoolean())
                .isTrue();
        assertUnchanged(present, "templates present again");
        assertThat(volids()).contains(isoVolid, vztmplVolid);
        assertThat(sandbox.resolve("store/template/iso/" + iso.getFileName())).hasSameBinaryContentAs(iso);
        assertThat(sandbox.resolve("store/template/cache/" + vztmpl.getFileName()))
                .hasSameBinaryContentAs(vztmpl);

        Map<String, JsonNode> absent = playbook(varsFile, "absent", "--skip-tags", "info");
        assertThat(absent).doesNotContainKey("storage info / all storages");
        assertThat(absent.get("templates absent / an ISO absent").get("changed").asBoolean())
                .isTrue();
        assertThat(absent.get("templates absent / a container template absent")
                        .get("changed")
                        .asBoolean())
                .isTrue();
        assertUnchanged(absent, "templates absent again");
        assertThat(volids()).doesNotContain(isoVolid, vztmplVolid);
        assertThat(sandbox.resolve("store/template/iso/" + iso.getFileName())).doesNotExist();
        assertThat(sandbox.resolve("store/template/cache/" + vztmpl.getFileName()))
                .doesNotExist();
    }

    /** proxmox_storage_info's three lists: pve's configuration, with the module's own conversions. */
    private static void storageInfo(Map<String, JsonNode> results) {
        List<String> all = new ArrayList<>();
        results.get("storage info / all storages")
                .get("proxmox_storages")
                .forEach(s -> all.add(s.get("storage").asText()));
        assertThat(all).as("pve lists them in no order").containsExactlyInAnyOrder("disks", "store", "vg");

        JsonNode byName = results.get("storage info / one storage by name").get("proxmox_storages");
        assertThat(byName).hasSize(1);
        JsonNode store = byName.get(0);
        assertThat(store.get("type").asText()).isEqualTo("dir");
        assertThat(store.get("path").asText())
                .isEqualTo(sandbox.resolve("store").toString());
        assertThat(store.get("content").toString()).isEqualTo("[\"iso\",\"vztmpl\",\"backup\"]");
        assertThat(store.get("nodes").toString()).isEqualTo("[\"" + NODE + "\"]");
        assertThat(store.get("prune-backups").toString()).isEqualTo("{\"keep-last\":\"3\",\"keep-weekly\":\"2\"}");
        assertThat(store.get("digest").asText()).matches("[0-9a-f]{40}");

        JsonNode byType = results.get("storage info / storages by type").get("proxmox_storages");
        assertThat(byType).hasSize(1);
        assertThat(byType.get(0).get("storage").asText()).isEqualTo("vg");
        assertThat(byType.get(0).get("shared").asBoolean())
                .as("the module makes pve's 1 true")
                .isTrue();
    }

    private static void assertUnchanged(Map<String, JsonNode> results, String play) {
        List<String> seen = new ArrayList<>();
        results.forEach((key, result) -> {
            if (key.startsWith(play + " / ")) {
                seen.add(key);
                assertThat(result.get("changed").asBoolean())
                        .as("%s: %s", key, result)
                        .isFalse();
            }
        });
        assertThat(seen).as("the tasks of '%s'", play).hasSize(2);
    }

    private static Path write(String name, int size) throws IOException {
        byte[] data = new byte[size];
        new Random(name.hashCode()).nextBytes(data);
        Path dir = Files.createDirectories(sandbox.resolve("sources"));
        return Files.write(dir.resolve(name), data);
    }

    private static List<String> volids() {
        List<String> ids = new ArrayList<>();
        vsm.run("list", "store", "--output-format", "json")
                .ok()
                .json()
                .forEach(v -> ids.add(v.get("volid").asText()));
        return ids;
    }

    /**
     * Runs the playbook with the state, through Ansible's JSON callback; fails unless it ends with
     * status 0 and no task failed. Returns each task's result by {@code PLAY / TASK}. The run's recap
     * counts two changes: the first template play's.
     */
    private static Map<String, JsonNode> playbook(Path varsFile, String state, String... more) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                ANSIBLE_PLAYBOOK.toString(),
                "-i",
                INVENTORY.toString(),
                PLAYBOOK.toString(),
                "-e",
                "@" + varsFile,
                "-e",
                "state=" + state));
        cmd.addAll(List.of(more));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(sandbox.toFile());
        Map<String, String> env = pb.environment();
        // only what this test sets: no ANSIBLE_* nor PROXMOX_* (the modules' fallbacks) from outside
        env.keySet().removeIf(k -> k.startsWith("ANSIBLE_") || k.startsWith("PROXMOX_") || k.endsWith("_CA_BUNDLE"));
        env.put("HOME", sandbox.toString());
        env.put("ANSIBLE_STDOUT_CALLBACK", "json");
        env.put("ANSIBLE_NOCOLOR", "1");
        env.put("REQUESTS_CA_BUNDLE", certificate.toString());
        Path out = sandbox.resolve("ansible-" + state + ".json");
        Path err = sandbox.resolve("ansible-" + state + ".err");
        Process p = pb.redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError("ansible-playbook (" + state + ") did not finish in " + TIMEOUT_SECONDS + " s");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue())
                .as("ansible-playbook (%s): %s %s", state, stdout, stderr)
                .isZero();
        JsonNode run = JSON.readTree(stdout);
        Map<String, JsonNode> results = new LinkedHashMap<>();
        for (JsonNode play : run.get("plays")) {
            for (JsonNode task : play.get("tasks")) {
                JsonNode result = task.get("hosts").get("localhost");
                String key = play.get("play").get("name").asText() + " / "
                        + task.get("task").get("name").asText();
                assertThat(result.path("failed").asBoolean())
                        .as("%s: %s", key, result)
                        .isFalse();
                results.put(key, result);
            }
        }
        JsonNode stats = run.get("stats").get("localhost");
        assertThat(stats.get("failures").asInt()).isZero();
        assertThat(stats.get("changed").asInt()).as("the recap's changed").isEqualTo(2);
        return results;
    }
}
