package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pve's password logins against {@code vsm serve} over real HTTPS, as curl or a browser makes them:
 * {@code POST /access/ticket} gives a {@code PVEAuthCookie} ticket and a {@code CSRFPreventionToken};
 * a change with the cookie but without a valid CSRF header, a wrong password, an unknown user, an
 * expired, forged or renamed ticket are each refused and change nothing. Expired tickets are made
 * with the server's own key (the test runs as the server's user), so that only their age is wrong.
 */
class ServeTicketTest {
    private static final String NODE = "ticketnode";
    private static final String PASSWORD = "correct horse battery";

    @TempDir
    static Path sandbox;

    static Vsm vsm;
    static ServeProcess server;
    static ApiClient api;
    static Path sslDir;
    static int port;

    @BeforeAll
    static void serve() throws Exception {
        vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE);
        Files.createDirectories(sandbox.resolve("store"));
        vsm.writeConfig("storages:\n  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images, iso]\n");
        passwd("ops@pve", PASSWORD).ok();
        passwd("viewer@pve", PASSWORD).ok();
        vsm.run("acl", "modify", "/storage", "--users", "ops@pve", "--privs", "Datastore.Audit,Datastore.AllocateSpace")
                .ok();
        vsm.run("acl", "modify", "/storage", "--users", "viewer@pve", "--privs", "Datastore.Audit")
                .ok();
        server = ServeProcess.start(vsm);
        port = server.port();
        sslDir = vsm.config().getParent().resolve("ssl");
        api = new ApiClient(sslDir.resolve("vsm-ssl.pem"), port);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static Vsm.Result passwd(String user, String password) {
        return vsm.shell("printf '%s\\n' '" + password + "' | vsm user passwd " + user);
    }

    private static Reply login(String user, String password) {
        return api.send("POST", "/access/ticket", "username=" + enc(user) + "&password=" + enc(password), Map.of());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static Map<String, String> cookie(String ticket) {
        return Map.of("Cookie", "PVEAuthCookie=" + ticket);
    }

    private static Map<String, String> cookie(String ticket, String csrf) {
        return Map.of("Cookie", "PVEAuthCookie=" + ticket, "CSRFPreventionToken", csrf);
    }

    @Test
    void aPasswordGivesPvesTicketAndCsrfToken() throws Exception {
        Reply reply = login("ops@pve", PASSWORD);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode data = reply.data();
        assertThat(data.get("username").asText()).isEqualTo("ops@pve");
        assertThat(data.get("ticket").asText()).matches("PVE:ops@pve:[0-9A-F]{8}::[A-Za-z0-9+/]+");
        assertThat(data.get("CSRFPreventionToken").asText()).matches("[0-9A-F]{8}:[A-Za-z0-9+/]+");
        assertThat(data.get("cap").get("storage").has("Datastore.AllocateSpace"))
                .isTrue();
        assertThat(data.get("cap").get("storage").has("Datastore.Allocate")).isFalse();

        // the realm apart, as pve's login form sends it
        Reply apart = api.send("POST", "/access/ticket", "username=ops&realm=pve&password=" + enc(PASSWORD), Map.of());
        assertThat(apart.status()).as(apart.body()).isEqualTo(200);

        Path access = vsm.config().getParent().resolve("access.json");
        assertThat(Files.readString(access)).doesNotContain(PASSWORD).contains("\"iterations\" : 600000");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sslDir.resolve("vsm-auth.key"))))
                .isEqualTo("rw-------");
        assertThat(vsm.run("user", "list").ok().lines()).contains("ops@pve", "viewer@pve");
    }

    @Test
    void theCookieReadsAndWithItsCsrfTokenChanges() {
        JsonNode login = login("ops@pve", PASSWORD).data();
        String ticket = login.get("ticket").asText();
        String csrf = login.get("CSRFPreventionToken").asText();
        Reply list = api.send("GET", "/nodes/" + NODE + "/storage", null, cookie(ticket));
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(list.data().get(0).get("storage").asText()).isEqualTo("store");
        // as a browser sends it: percent-encoded
        Reply encoded = api.send("GET", "/nodes/" + NODE + "/storage", null, cookie(enc(ticket)));
        assertThat(encoded.status()).as(encoded.body()).isEqualTo(200);

        Reply alloc = api.send(
                "POST",
                "/nodes/" + NODE + "/storage/store/content",
                "vmid=200&filename=vm-200-disk-0.raw&size=1M",
                cookie(ticket, csrf));
        assertThat(alloc.status()).as(alloc.body()).isEqualTo(200);
        assertThat(alloc.data().asText()).isEqualTo("store:200/vm-200-disk-0.raw");
        assertThat(vsm.run("list", "store").ok().out()).contains("store:200/vm-200-disk-0.raw");
    }

    @Test
    void aChangeWithTheCookieButNoValidCsrfTokenIs401AndChangesNothing() throws Exception {
        JsonNode ops = login("ops@pve", PASSWORD).data();
        JsonNode viewer = login("viewer@pve", PASSWORD).data();
        String ticket = ops.get("ticket").asText();
        String csrf = ops.get("CSRFPreventionToken").asText();
        String stamp = csrf.substring(0, 8);
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        String path = "/nodes/" + NODE + "/storage/store/content";
        String form = "vmid=201&filename=vm-201-disk-0.raw&size=1M";
        for (Map<String, String> headers : java.util.List.of(
                cookie(ticket),
                cookie(ticket, ""),
                cookie(ticket, viewer.get("CSRFPreventionToken").asText()),
                cookie(ticket, stamp + ":" + "A".repeat(43)),
                cookie(ticket, csrf + "x"),
                cookie(ticket, csrfToken("ops@pve", now() - 7200 - 10)))) {
            Reply reply = api.send("POST", path, form, headers);
            assertThat(reply.status()).as("%s: %s", headers, reply.body()).isEqualTo(401);
            assertThat(reply.json().get("message").asText()).isEqualTo("Permission denied - invalid csrf token\n");
            Reply free = api.send("DELETE", path + "/store%3A200%2Fvm-200-disk-0.raw", null, headers);
            assertThat(free.status()).isEqualTo(401);
        }
        // the forging code is right: a fresh token made the same way is taken
        assertThat(api.send("GET", "/nodes/" + NODE + "/storage", null, cookie(ticket, csrfToken("ops@pve", now())))
                        .status())
                .isEqualTo(200);
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }

    @Test
    void aWrongPasswordOrUnknownUserGetsNoTicket() {
        for (String[] attempt : new String[][] {
            {"ops@pve", "wrong password"},
            {"ops@pve", ""},
            {"nobody@pve", PASSWORD},
            {"ops@pam", PASSWORD},
            {"ops@pve", "PVE:ops@pve:00000000::AAAA"},
        }) {
            Reply reply = login(attempt[0], attempt[1]);
            assertThat(reply.status())
                    .as("%s / %s: %s", attempt[0], attempt[1], reply.body())
                    .isEqualTo(401);
            assertThat(reply.body()).doesNotContain("ticket").doesNotContain("PVE:");
            assertThat(reply.json().get("message").asText()).isEqualTo("authentication failure\n");
        }
        Reply missing = api.send("POST", "/access/ticket", "username=ops%40pve", Map.of());
        assertThat(missing.status()).isEqualTo(400);
        assertThat(missing.json().get("errors").has("password")).isTrue();
    }

    @Test
    void anExpiredForgedOrRenamedTicketIs401() throws Exception {
        String ticket = login("ops@pve", PASSWORD).data().get("ticket").asText();
        String path = "/nodes/" + NODE + "/storage";
        // made with the server's key: only the age decides
        assertThat(api.send("GET", path, null, cookie(ticket("ops@pve", now()))).status())
                .isEqualTo(200);
        assertThat(api.send("GET", path, null, cookie(ticket("ops@pve", now() - 7200 - 5)))
                        .status())
                .isEqualTo(401);
        assertThat(api.send("GET", path, null, cookie(ticket("ops@pve", now() + 600)))
                        .status())
                .isEqualTo(401);
        String renamed = ticket.replace("PVE:ops@pve:", "PVE:root@pam:");
        assertThat(api.send("GET", path, null, cookie(renamed)).status()).isEqualTo(401);
        String otherKey = ticket.substring(0, ticket.indexOf("::") + 2) + "A".repeat(43);
        assertThat(api.send("GET", path, null, cookie(otherKey)).status()).isEqualTo(401);
        assertThat(api.send("GET", path, null, Map.of("Cookie", "PVEAuthCookie="))
                        .status())
                .isEqualTo(401);
        // an expired ticket does not renew either
        Reply renew = login("ops@pve", ticket("ops@pve", now() - 7200 - 5));
        assertThat(renew.status()).isEqualTo(401);
    }

    @Test
    void aValidTicketRenewsItselfAndDiesWithItsUser() {
        passwd("gone@pve", PASSWORD).ok();
        String ticket = login("gone@pve", PASSWORD).data().get("ticket").asText();
        Reply renewed = login("gone@pve", ticket);
        assertThat(renewed.status()).as(renewed.body()).isEqualTo(200);
        assertThat(login("ops@pve", ticket).status())
                .as("another user's ticket is no password")
                .isEqualTo(401);
        assertThat(api.send("GET", "/version", null, cookie(ticket)).status()).isEqualTo(200);
        vsm.run("user", "remove", "gone@pve").ok();
        assertThat(api.send("GET", "/version", null, cookie(ticket)).status()).isEqualTo(401);
        assertThat(login("gone@pve", PASSWORD).status()).isEqualTo(401);
    }

    @Test
    void badPasswordsAndUsersAreRefusedByTheCommand() throws Exception {
        Path access = vsm.config().getParent().resolve("access.json");
        String before = Files.readString(access);
        passwd("short@pve", "short").badInput("too short");
        passwd("bad:user@pve", PASSWORD).badInput("invalid user id");
        vsm.shell("vsm user passwd x@pve </dev/null").badInput("no password on standard input");
        vsm.run("user", "remove", "nobody@pve").badInput("no such user");
        assertThat(Files.readString(access)).isEqualTo(before);
    }

    /**
     * The server's JVM has the whole JIT, not the C1 alone of the short commands: under C1 a login's
     * PBKDF2 took 3-4 s on a busy machine, and proxmoxer (and through it Ansible's proxmox modules)
     * gives up after 5 s.
     */
    @Test
    void theServerIsNotHeldToC1() throws Exception {
        String command = Files.readString(
                        Path.of("/proc/" + server.started().process().pid() + "/cmdline"))
                .replace('\0', ' ');
        assertThat(command).contains(" serve ").doesNotContain("TieredStopAtLevel");
        assertThat(login("ops@pve", PASSWORD).status()).isEqualTo(200);
    }

    /**
     * python3-proxmoxer 1.2, Debian's package, unchanged, logs in with a password and allocates and
     * frees a disk: its changes carry the ticket's CSRF token as pve's clients do.
     */
    @Test
    void proxmoxerLogsInWithAPasswordAndChanges() throws Exception {
        passwd("script@pve", PASSWORD).ok();
        vsm.run(
                        "acl",
                        "modify",
                        "/storage/store",
                        "--users",
                        "script@pve",
                        "--privs",
                        "Datastore.Audit,Datastore.AllocateSpace,Datastore.Allocate")
                .ok();
        HostTools.Result run = server.proxmoxer("proxmoxer-password.py", "script@pve", PASSWORD, "store", "300");
        assertThat(run.exit()).as("proxmoxer: %s", run.err()).isZero();
        JsonNode got = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
        assertThat(got.get("volid").asText()).isEqualTo("store:300/vm-300-disk-0.raw");
        assertThat(got.get("listed").toString()).contains("store:300/vm-300-disk-0.raw");
        assertThat(got.get("after").toString()).doesNotContain("store:300/vm-300-disk-0.raw");
        assertThat(vsm.run("list", "store").ok().out()).doesNotContain("store:300/");
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    /** A ticket as the server makes one (docs/api.md), with its key, at the given time. */
    private static String ticket(String user, long time) throws Exception {
        String plain = "PVE:" + user + ":" + String.format(Locale.ROOT, "%08X", time);
        return plain + "::" + sign("vsm ticket", plain);
    }

    private static String csrfToken(String user, long time) throws Exception {
        String stamp = String.format(Locale.ROOT, "%08X", time);
        return stamp + ":" + sign("vsm csrf", stamp + ":" + user);
    }

    private static String sign(String purpose, String text) throws Exception {
        byte[] key = HexFormat.of()
                .parseHex(Files.readString(sslDir.resolve("vsm-auth.key")).strip());
        byte[] derived = hmac(key, purpose.getBytes(StandardCharsets.US_ASCII));
        return Base64.getEncoder()
                .withoutPadding()
                .encodeToString(hmac(derived, text.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] hmac(byte[] key, byte[] data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }
}
