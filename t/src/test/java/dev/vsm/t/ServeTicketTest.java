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
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
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
        List<Map<String, String>> refused = List.of(
                cookie(ticket),
                cookie(ticket, ""),
                cookie(ticket, viewer.get("CSRFPreventionToken").asText()),
                cookie(ticket, stamp + ":" + "A".repeat(43)),
                cookie(ticket, csrf + "x"),
                cookie(ticket, csrfToken("ops@pve", now() - 7200 - 10)));
        List<Callable<Reply>> calls = new ArrayList<>();
        for (Map<String, String> headers : refused) {
            calls.add(() -> api.send("POST", path, form, headers));
            calls.add(() -> api.send("DELETE", path + "/store%3A200%2Fvm-200-disk-0.raw", null, headers));
        }
        List<Reply> replies = AtOnce.all(calls); // each 401 comes 3 s late, as pve's
        for (int i = 0; i < replies.size(); i++) {
            Reply reply = replies.get(i);
            assertThat(reply.status())
                    .as("%s: %s", refused.get(i / 2), reply.body())
                    .isEqualTo(401);
            assertThat(reply.json().get("message").asText()).isEqualTo("Permission denied - invalid csrf token\n");
        }
        // the forging code is right: a fresh token made the same way is taken
        assertThat(api.send("GET", "/nodes/" + NODE + "/storage", null, cookie(ticket, csrfToken("ops@pve", now())))
                        .status())
                .isEqualTo(200);
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }

    @Test
    void aWrongPasswordOrUnknownUserGetsNoTicket() {
        List<String[]> attempts = List.of(
                new String[] {"ops@pve", "wrong password"},
                new String[] {"ops@pve", ""},
                new String[] {"nobody@pve", PASSWORD},
                new String[] {"ops@pam", PASSWORD},
                new String[] {"ops@pve", "PVE:ops@pve:00000000::AAAA"});
        List<Reply> replies = AtOnce.all(attempts.stream()
                .<Callable<Reply>>map(a -> () -> login(a[0], a[1]))
                .toList());
        for (int i = 0; i < attempts.size(); i++) {
            Reply reply = replies.get(i);
            assertThat(reply.status())
                    .as("%s / %s: %s", attempts.get(i)[0], attempts.get(i)[1], reply.body())
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
        String renamed = ticket.replace("PVE:ops@pve:", "PVE:root@pam:");
        String otherKey = ticket.substring(0, ticket.indexOf("::") + 2) + "A".repeat(43);
        List<Map<String, String>> refused = List.of(
                cookie(ticket("ops@pve", now() - 7200 - 5)),
                cookie(ticket("ops@pve", now() + 600)),
                cookie(renamed),
                cookie(otherKey),
                Map.of("Cookie", "PVEAuthCookie="));
        List<Callable<Reply>> calls = new ArrayList<>();
        for (Map<String, String> headers : refused) {
            calls.add(() -> api.send("GET", path, null, headers));
        }
        String expired = ticket("ops@pve", now() - 7200 - 5);
        calls.add(() -> login("ops@pve", expired)); // an expired ticket does not renew either
        List<Reply> replies = AtOnce.all(calls); // each 401 comes 3 s late, as pve's
        for (int i = 0; i < replies.size(); i++) {
            assertThat(replies.get(i).status()).as("refusal %d", i).isEqualTo(401);
        }
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
        List<Reply> refused = AtOnce.all(
                List.of(() -> api.send("GET", "/version", null, cookie(ticket)), () -> login("gone@pve", PASSWORD)));
        assertThat(refused).extracting(Reply::status).containsExactly(401, 401);
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

    /**
     * As pve, a failed authentication is answered no sooner than 3 s after the request: a wrong
     * password, a wrong token secret, a forged cookie, a change without its CSRF token (each its
     * own client, all at once; a lower bound only).
     */
    @Test
    void aFailedAuthenticationIsAnswered3sAfterTheRequest() throws Exception {
        String token = ServeProcess.token(vsm, "ops@pve", "late");
        String wrongSecret = token.substring(0, token.indexOf('=') + 1) + "00000000-0000-4000-8000-000000000000";
        String forged = login("ops@pve", PASSWORD).data().get("ticket").asText() + "x";
        String ticket = login("ops@pve", PASSWORD).data().get("ticket").asText();
        String content = "/nodes/" + NODE + "/storage/store/content";
        List<Callable<Reply>> failures = List.of(
                () -> server.client()
                        .send("POST", "/access/ticket", "username=ops%40pve&password=wrong+password", Map.of()),
                () -> server.client().get(wrongSecret, content),
                () -> server.client().send("GET", content, null, cookie(forged)),
                () -> server.client()
                        .send("POST", content, "vmid=202&filename=vm-202-disk-0.raw&size=1M", cookie(ticket)));
        List<long[]> timed = AtOnce.all(failures.stream()
                .<Callable<long[]>>map(failure -> () -> {
                    long sent = System.nanoTime();
                    Reply reply = failure.call();
                    return new long[] {reply.status(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)};
                })
                .toList());
        for (int i = 0; i < timed.size(); i++) {
            assertThat(timed.get(i)[0]).as("failure %d", i).isEqualTo(401);
            assertThat(timed.get(i)[1]).as("failure %d answered after (ms)", i).isGreaterThanOrEqualTo(3000);
        }
        assertThat(login("ops@pve", PASSWORD).status()).isEqualTo(200);
    }

    /**
     * While 50 failed authentications wait for their answers (45 wrong token secrets, 40 of them
     * changes with a body, and 5 wrong passwords), a good change and a good read are answered
     * before any of them: the wait holds no thread of the server's and no room of its limits (8
     * changes at once), which the failures would otherwise fill. Each failure is written whole on
     * a connection of its own (made beforehand) before the good requests are sent. (With the wait in the API's
     * thread, behind the limits, the good change came after the first failures.)
     */
    @Test
    void pendingFailuresHoldNothingBack() throws Exception {
        String token = ServeProcess.token(vsm, "ops@pve", "flood", "--privsep", "0");
        String wrong = token.substring(0, token.indexOf('=') + 1) + "00000000-0000-4000-8000-000000000000";
        String content = "/api2/json/nodes/" + NODE + "/storage/store/content";
        int failures = 50;
        ApiClient client = server.client();
        assertThat(client.get(token, "/version").status()).isEqualTo(200); // its connection made
        SSLSocketFactory tls = ApiClient.trusting(server.certificate()).getSocketFactory();
        // the connections made first, at once; then each failure written whole, then the good requests
        List<SSLSocket> sockets = AtOnce.all(Collections.nCopies(failures, () -> {
            SSLSocket socket = (SSLSocket) tls.createSocket("127.0.0.1", port);
            socket.setSoTimeout(60_000);
            socket.startHandshake();
            return socket;
        }));
        ExecutorService readers = Executors.newFixedThreadPool(failures);
        try {
            List<Future<long[]>> pending = new ArrayList<>();
            long first = System.nanoTime();
            for (int n = 0; n < failures; n++) {
                String request = n < 5
                        ? post("/api2/json/access/ticket", "", "username=ops%40pve&password=wrong" + n)
                        : n < 10
                                ? "GET " + content + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: PVEAPIToken="
                                        + wrong + "\r\nConnection: close\r\n\r\n"
                                : post(
                                        content,
                                        "Authorization: PVEAPIToken=" + wrong + "\r\n",
                                        "vmid=203&filename=vm-203-disk-" + n + ".raw&size=1M");
                SSLSocket socket = sockets.get(n);
                socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                pending.add(readers.submit(() -> {
                    String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    return new long[] {answer.startsWith("HTTP/1.1 401 ") ? 401 : 0, System.nanoTime()};
                }));
            }
            Reply alloc = client.post(
                    token, "/nodes/" + NODE + "/storage/store/content", "vmid=203&filename=vm-203-disk-0.raw&size=1M");
            Reply list = client.get(token, "/nodes/" + NODE + "/storage/store/content");
            long answered = System.nanoTime();
            assertThat(alloc.status()).as(alloc.body()).isEqualTo(200);
            assertThat(list.status()).isEqualTo(200);
            for (Future<long[]> failure : pending) {
                long[] got = failure.get(120, TimeUnit.SECONDS);
                assertThat(got[0]).isEqualTo(401);
                assertThat(got[1])
                        .as("a failure answered before the good requests")
                        .isGreaterThan(answered);
            }
        } finally {
            readers.shutdownNow();
            for (SSLSocket socket : sockets) {
                socket.close();
            }
        }
        assertThat(vsm.run("list", "store").ok().out())
                .contains("store:203/vm-203-disk-0.raw")
                .doesNotContain("vm-203-disk-1");
        vsm.run("free", "store:203/vm-203-disk-0.raw").ok();
    }

    /** A form POST as written on the wire, {@code headers} ending each with CRLF. */
    private static String post(String path, String headers, String form) {
        return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length()
                + "\r\nConnection: close\r\n\r\n" + form;
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
