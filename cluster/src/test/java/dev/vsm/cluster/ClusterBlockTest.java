package dev.vsm.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigException;
import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.lock.FileLocks;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code cluster:} block of the local file: defaults, every bad value, and the refused local {@code storages:}. */
class ClusterBlockTest {
    @TempDir
    Path tmp;

    private Optional<ClusterSettings> read(String yaml) throws IOException {
        Path file = tmp.resolve("storage.yaml");
        Files.writeString(file, yaml);
        FileLocks locks = new FileLocks(tmp.resolve("locks"), new PrintStream(OutputStream.nullOutputStream()));
        return new ConfigStore(new ConfigLocation(file, true, tmp.resolve("local")), Fixtures.SCHEMAS, locks).cluster();
    }

    @Test
    void aFullBlockIsRead() throws IOException {
        ClusterSettings s =
                read("cluster:\n  zookeeper: 127.0.0.1:2181, 127.0.0.1:2182,zk-3.lab:2183\n  node: node1\n  root: /lab/vsm\n  session-timeout: 30\nplugin-dir: /opt\n")
                        .orElseThrow();
        assertThat(s.zookeeper()).isEqualTo("127.0.0.1:2181,127.0.0.1:2182,zk-3.lab:2183");
        assertThat(s.node()).isEqualTo("node1");
        assertThat(s.root()).isEqualTo("/lab/vsm");
        assertThat(s.configPath()).isEqualTo("/lab/vsm/config");
        assertThat(s.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.connectWait()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void rootAndSessionTimeoutHaveDefaults() throws IOException {
        ClusterSettings s = read("cluster:\n  zookeeper: localhost:2181\n  node: n2\n  session-timeout: 3\n")
                .orElseThrow();
        assertThat(s.root()).isEqualTo("/vsm");
        assertThat(s.connectWait()).isEqualTo(Duration.ofSeconds(3));
        assertThat(read("cluster:\n  zookeeper: localhost:2181\n  node: n2\n")
                        .orElseThrow()
                        .sessionTimeout())
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(read("cluster:\n  zookeeper: localhost:2181\n  node: 7\n  session-timeout: '20'\n")
                        .orElseThrow())
                .extracting(ClusterSettings::node, ClusterSettings::sessionTimeout)
                .containsExactly("7", Duration.ofSeconds(20));
    }

    @Test
    void theSecretFileIsBesideTheConfigFileUnlessNamed() throws IOException {
        String block = "cluster:\n  zookeeper: localhost:2181\n  node: n2\n";
        assertThat(read(block).orElseThrow().secretFile()).isEqualTo(tmp.resolve("cluster.secret"));
        assertThat(read(block + "  secret-file: keys/zk.secret\n").orElseThrow().secretFile())
                .isEqualTo(tmp.resolve("keys/zk.secret"));
        assertThat(read(block + "  secret-file: /etc/vsm/../zk.secret\n")
                        .orElseThrow()
                        .secretFile())
                .isEqualTo(Path.of("/etc/zk.secret"));
    }

    @Test
    void noBlockIsNotClusterMode() throws IOException {
        assertThat(read("storages:\n  a:\n    type: dir\n    path: /srv\n")).isEmpty();
        assertThat(read("# mentions cluster only in a comment\nstorages:\n")).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "zookeeper: ''|cluster: zookeeper: must be a string (got '')",
                "zookeeper: 127.0.0.1|cluster: zookeeper: must be the ZooKeeper servers as host:port[,host:port...] (got '127.0.0.1')",
                "zookeeper: 'a:1,,b:2'|cluster: zookeeper: must be the ZooKeeper servers as host:port[,host:port...] (got 'a:1,,b:2')",
                "zookeeper: a:99999|cluster: zookeeper: must be the ZooKeeper servers as host:port[,host:port...] (got 'a:99999')",
                "node: -bad|cluster: node: must be a node name: letters, digits and '-', starting and ending with a letter or digit (got '-bad')",
                "root: vsm|cluster: root: must be an absolute znode path such as /vsm, without a trailing '/' (got 'vsm')",
                "root: /vsm/|cluster: root: must be an absolute znode path such as /vsm, without a trailing '/' (got '/vsm/')",
                "root: /a/../b|cluster: root: must be an absolute znode path such as /vsm, without a trailing '/' (got '/a/../b')",
                "session-timeout: 1|cluster: session-timeout: must be a whole number of seconds from 2 to 600 (got '1')",
                "session-timeout: 601|cluster: session-timeout: must be a whole number of seconds from 2 to 600 (got '601')",
                "session-timeout: 10s|cluster: session-timeout: must be a whole number of seconds from 2 to 600 (got '10s')",
                "secret-file: ''|cluster: secret-file: must be the path of a file (absolute, or relative to this file's directory) (got '')",
                "secret-file: /etc/vsm/|cluster: secret-file: must be the path of a file (absolute, or relative to this file's directory) (got '/etc/vsm/')",
                "secret-file: [a]|cluster: secret-file: must be the path of a file (absolute, or relative to this file's directory) (got a list)",
                "name: lab|cluster: name: unknown key (the cluster block takes zookeeper, node, root, session-timeout and secret-file)",
            })
    void badValuesNameFileLineAndKey(String entry, String message) throws IOException {
        String key = entry.substring(0, entry.indexOf(':'));
        boolean zookeeper = key.equals("zookeeper");
        boolean node = key.equals("node");
        String yaml = "cluster:\n"
                + "  " + (zookeeper ? entry : "zookeeper: 127.0.0.1:2181") + "\n"
                + "  " + (node ? entry : "node: n1") + "\n"
                + (zookeeper || node ? "" : "  " + entry + "\n");
        int line = zookeeper ? 2 : node ? 3 : 4;
        assertThatThrownBy(() -> read(yaml))
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(tmp.resolve("storage.yaml") + ":" + line + ": " + message);
    }

    @Test
    void requiredKeysAreNamed() throws IOException {
        String file = tmp.resolve("storage.yaml").toString();
        assertThatThrownBy(() -> read("cluster:\n  node: n1\n"))
                .hasMessage(file + ":2: cluster: zookeeper: missing value for required option 'zookeeper'");
        assertThatThrownBy(() -> read("cluster:\n  zookeeper: a:1\n"))
                .hasMessage(file + ":2: cluster: node: missing value for required option 'node'");
        assertThatThrownBy(() -> read("cluster: zk1:2181\n"))
                .hasMessage(file
                        + ":1: cluster: must be a mapping of zookeeper, node, root, session-timeout and secret-file");
    }

    @Test
    void localStoragesAreRefusedInClusterMode() throws IOException {
        String file = tmp.resolve("storage.yaml").toString();
        assertThatThrownBy(() -> read(
                        "cluster:\n  zookeeper: a:1\n  node: n1\nstorages:\n  a:\n    type: dir\n    path: /srv\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(file + ":4: storages: not used in cluster mode: the storage configuration is in ZooKeeper"
                        + " (seed it with 'vsm cluster init --from FILE')");
    }
}
