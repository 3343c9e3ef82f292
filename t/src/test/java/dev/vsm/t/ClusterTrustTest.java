package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Vsm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client of the ZooKeeper ensemble is not trusted: through the real {@code cli/vsm},
 * {@code cluster init} creates the cluster secret root's with mode 0600 and a tree only that
 * secret may change; a client without it can neither read nor rewrite the configuration; a
 * hostile secret file, a wrong secret and a tree planted with open ACLs are each refused with one
 * line, exit 2, nothing used.
 */
class ClusterTrustTest {
    /** world:anyone:cdrwa, what a client gets by default (ZooDefs.Ids.OPEN_ACL_UNSAFE). */
    private static final List<ACL> OPEN =
            Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone")));

    private static final String EVIL = "storages:\n  evil:\n    type: dir\n    path: /etc\n    content: [images]\n";

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    private final List<CuratorFramework> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        for (CuratorFramework c : clients) {
            c.close();
        }
    }

    /** A plain ZooKeeper client of the ensemble, without any credential. */
    private CuratorFramework stranger() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(zk.connectString())
                .retryPolicy(new RetryOneTime(100))
                .build();
        clients.add(c);
        c.start();
        assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return c;
    }

    /** A node whose secret file is the default, {@code cluster.secret} beside its config file. */
    private Vsm node(String name, String root) {
        return new Vsm(sandbox.resolve(name))
                .writeConfig(ClusterEnsemble.clusterBlock(zk.connectString(), name, root, 10));
    }

    private Path seed(String storages) throws Exception {
        return Files.writeString(sandbox.resolve("seed-" + System.nanoTime() + ".yaml"), storages);
    }

    private String seedStorages() {
        return "storages:\n  shared:\n    type: dir\n    path: " + sandbox.resolve("shared")
                + "\n    content: [images]\n    shared: true\n";
    }

    @Test
    void initCreatesARootOnlySecretAndATreeNoOtherClientMayReadOrChange() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node1 = node("node1", root);
        Path secret = node1.config().resolveSibling("cluster.secret");

        Vsm.Result init = node1.run(
                        "cluster", "init", "--from", seed(seedStorages()).toString())
                .ok();
        assertThat(init.out())
                .contains("created the cluster secret " + secret
                        + ": copy it to the same path on every node, root's with mode 0600 (scp -p)");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
        assertThat(Files.getAttribute(secret, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(0);
        assertThat(Files.readString(secret)).matches("[A-Za-z0-9_-]{43}\n");

        // a second node without the file is told what to do; with a copy it works
        Vsm node2 = node("node2", root);
        Path secret2 = node2.config().resolveSibling("cluster.secret");
        node2.run("list", "shared").badInput("cluster secret file '" + secret2 + "' does not exist");
        Files.copy(secret, secret2);
        Files.setPosixFilePermissions(secret2, PosixFilePermissions.fromString("rw-------"));
        node2.run("list", "shared").ok();

        CuratorFramework stranger = stranger();
        for (String path : List.of(root, root + "/config")) {
            assertThatThrownBy(() -> stranger.getData().forPath(path))
                    .as("read %s", path)
                    .isInstanceOf(KeeperException.NoAuthException.class);
        }
        assertThatThrownBy(() -> stranger.setData().forPath(root + "/config", EVIL.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.create()
                        .withMode(CreateMode.PERSISTENT)
                        .withACL(OPEN)
                        .forPath(root + "/locks/storage-shared", new byte[0]))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.setACL().withACL(OPEN).forPath(root))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThat(node2.run("cluster", "export").ok().out())
                .contains(sandbox.resolve("shared").toString());

        // a second init finds the secret and keeps it
        String before = Files.readString(secret);
        node1.run("cluster", "init", "--force", "--from", seed(seedStorages()).toString())
                .ok();
        assertThat(Files.readString(secret)).isEqualTo(before);
    }

    @Test
    void aHostileSecretFileIsRefusedWithExit2AndNothingChanged() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node = node("node1", root);
        Path secret = node.config().resolveSibling("cluster.secret");
        node.run("cluster", "init", "--from", seed(seedStorages()).toString()).ok();
        String stored = node.run("cluster", "export").ok().out();

        // a link (to a good secret file elsewhere), another user's file, a file others may read
        Path elsewhere = sandbox.resolve("elsewhere.secret");
        Files.move(secret, elsewhere);
        Files.createSymbolicLink(secret, elsewhere);
        refusedEverywhere(node, "cluster secret file '" + secret + "' is a symbolic link, not a regular file");
        Files.delete(secret);

        Files.copy(elsewhere, secret);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
        refusedEverywhere(
                node,
                "cluster secret file '" + secret + "' may be read or written by group or others (owned by uid 0 mode"
                        + " 0644): chmod 0600 " + secret);

        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.setAttribute(secret, "unix:uid", 65534);
        refusedEverywhere(node, "cluster secret file '" + secret + "' is not root's (owned by uid 65534 mode 0600)");

        Files.setAttribute(secret, "unix:uid", 0);
        Files.writeString(secret, "");
        refusedEverywhere(node, "cluster secret file '" + secret + "' is empty");

        Files.copy(elsewhere, secret, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        assertThat(node.run("cluster", "export").ok().out()).isEqualTo(stored);
    }

    /**
     * Reading, changing and init all refuse with {@code message}: exit 2, one line (the caller
     * checks afterwards that the stored configuration is unchanged).
     */
    private void refusedEverywhere(Vsm node, String message) throws Exception {
        for (String[] args : new String[][] {
            {"status"},
            {"cluster", "export"},
            {"alloc", "shared", "100", "", "1M"},
            {"cluster", "init", "--force", "--from", seed(EVIL).toString()}
        }) {
            node.run(args).badInput(message);
        }
        assertThat(sandbox.resolve("shared")).doesNotExist();
    }

    @Test
    void aWrongSecretIsReportedAsNotAuthorized() throws Exception {
        String root = ClusterEnsemble.newRoot();
        node("node1", root)
                .run("cluster", "init", "--from", seed(seedStorages()).toString())
                .ok();
        Vsm other = node("node2", root);
        Path secret = ClusterEnsemble.writeSecret(other.config().resolveSibling("cluster.secret"));
        for (String[] args : new String[][] {{"status"}, {"cluster", "status"}, {"alloc", "shared", "100", "", "1M"}}) {
            Vsm.Result r = other.run(args)
                    .badInput("not authorized to ZooKeeper's vsm tree (" + root + "): check cluster.secret (" + secret
                            + ") is the file 'vsm cluster init' made");
            assertThat(r.err()).doesNotContain("no quorum");
        }
    }

    @Test
    void aTreePlantedWithOpenAclsIsRefusedUntilInitForce() throws Exception {
        String root = ClusterEnsemble.newRoot();
        CuratorFramework stranger = stranger();
        stranger.create().withMode(CreateMode.PERSISTENT).withACL(OPEN).forPath(root, new byte[0]);
        stranger.create()
                .withMode(CreateMode.PERSISTENT)
                .withACL(OPEN)
                .forPath(root + "/config", EVIL.getBytes(StandardCharsets.UTF_8));
        Vsm node = zk.node(sandbox, "node1", root, 10);
        String refusal = "ZooKeeper's vsm tree is not vsm's alone: " + root
                + " has the ACL world:anyone:cdrwa, so others may change it; nothing used. Run 'vsm cluster init"
                + " --force' on a node with the cluster secret to make it vsm's alone, then check 'vsm cluster"
                + " export'";
        for (String[] args : new String[][] {
            {"status"},
            {"path", "evil:100/vm-100-disk-0.raw"},
            {"cluster", "export"},
            {"cluster", "status"},
            {"alloc", "evil", "100", "", "1M"},
            {"cluster", "init", "--from", seed(seedStorages()).toString()}
        }) {
            Vsm.Result r = node.run(args).badInput(refusal);
            assertThat(r.out()).doesNotContain("/etc");
        }
        assertThat(new String(stranger.getData().forPath(root + "/config"), StandardCharsets.UTF_8))
                .isEqualTo(EVIL);

        node.run("cluster", "init", "--force", "--from", seed(seedStorages()).toString())
                .ok();
        assertThatThrownBy(() -> stranger.setData().forPath(root + "/config", EVIL.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.setACL().withACL(OPEN).forPath(root))
                .isInstanceOf(KeeperException.NoAuthException.class);
        assertThat(node.run("status").ok().out()).contains("shared").doesNotContain("evil");
    }
}
