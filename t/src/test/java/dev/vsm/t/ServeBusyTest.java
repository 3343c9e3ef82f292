package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ApiClient;
import dev.vsm.t.support.ApiClient.Reply;
import dev.vsm.t.support.ServeProcess;
import dev.vsm.t.support.Vsm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm serve} while many changes wait for one storage's lock: found by t/bench/api.sh, whose
 * 50 clients allocating and freeing on one storage got "HTTP connect timed out": every thread of
 * the server's pool was blocked on the lock, and a new connection's TLS handshake needs one too.
 * Here a {@code vsm alloc} process holds the storage's lock (stopped before its qemu-img) while
 * 36 allocs (more than the server has threads) reach the server: a new connection must still be
 * served at once, a read must be answered, and once the lock is free every alloc must succeed.
 */
class ServeBusyTest {
    private static final String NODE = "testnode";
    private static final int WAITING = 36;

    @TempDir
    Path sandbox;

    private ServeProcess server;
    private Vsm.Started holder;
    private ExecutorService clients;

    @AfterEach
    void stop() {
        if (clients != null) {
            clients.shutdownNow();
        }
        if (holder != null && holder.process().isAlive()) {
            holder.process().destroyForcibly();
            holder.finish();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void changesWaitingForALockLeaveRoomForNewConnectionsAndReads() throws Exception {
        // the waiting allocs must outlast the holder's pause, not time out on pve's 10 s
        Vsm vsm = new Vsm(sandbox.resolve("vsm")).env("VSM_NODE", NODE).env("VSM_LOCK_TIMEOUT", "300");
        Files.createDirectories(sandbox.resolve("store"));
        vsm.writeConfig("storages:\n  store:\n    type: dir\n    path: " + sandbox.resolve("store")
                + "\n    content: [images]\n");
        String made = vsm.run("token", "add", "root@pam", "busy", "--privsep", "0", "--output-format", "json")
                .ok()
                .json()
                .path("value")
                .asText();
        String root = "root@pam!busy=" + made;
        server = ServeProcess.start(vsm);
        int port = server.port();
        Path certificate = server.certificate();
        ApiClient api = new ApiClient(certificate, port);
        assertThat(api.get(root, "/version").status()).isEqualTo(200);

        holder = new Vsm(sandbox.resolve("vsm"))
                .env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=qemu-img")
                .start("alloc", "store", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2");
        holder.awaitPaused(120);

        clients = Executors.newFixedThreadPool(WAITING);
        List<Future<Reply>> allocs = new ArrayList<>();
        for (int i = 0; i < WAITING; i++) {
            String form = "vmid=101&filename=vm-101-disk-" + i + ".qcow2&size=1024&format=qcow2";
            // each its own client, so its own connection, as separate programs would be
            allocs.add(clients.submit(() ->
                    new ApiClient(certificate, port).post(root, "/nodes/" + NODE + "/storage/store/content", form)));
        }
        Thread.sleep(5000); // the allocs reach the server and wait for the lock

        try (SSLSocket socket =
                (SSLSocket) ApiClient.trusting(certificate).getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake(); // a read timeout (SocketTimeoutException) on a starved server
            socket.getOutputStream()
                    .write(("GET /api2/json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: PVEAPIToken=" + root
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).startsWith("HTTP/1.1 200");
        }
        assertThat(allocs).noneMatch(Future::isDone);

        new ProcessBuilder("kill", "-CONT", Long.toString(holder.process().pid()))
                .start()
                .waitFor();
        holder.finish().ok();
        for (Future<Reply> alloc : allocs) {
            Reply reply = alloc.get(240, TimeUnit.SECONDS);
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        }
        assertThat(api.get(root, "/nodes/" + NODE + "/storage/store/content").data())
                .hasSize(WAITING + 1);
    }
}
