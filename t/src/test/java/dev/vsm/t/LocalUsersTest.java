package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.StoragePlugin;
import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.RootTest;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another local user must not get in: root runs the real cli/vsm while user {@code nobody}
 * (uid 65534, acting through {@code setpriv}) plants a lock directory, a FIFO, a cluster
 * configuration cache, a plugin jar or a configuration file, holds a lock, or reads a guest's
 * disk. The sandbox is opened (mode 1777, as {@code /run/lock} is) so that nobody reaches into it
 * as they would into {@code /run/lock} or {@code /var/lib/vz}; the machine's own {@code /run/lock/vsm} is never used
 * ({@code $VSM_LOCK_DIR} points into the sandbox and gets the same checks).
 */
@RootTest
class LocalUsersTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path locks;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        HostTools.require("acts as another local user", "/usr/bin/setpriv", "/usr/bin/mkfifo", "/usr/bin/python3");
        chmod(sandbox, "1777"); // as /run/lock and /tmp are: anyone may add a name, only its owner remove it
        vsm = new Vsm(sandbox).processes();
        locks = sandbox.resolve("locks");
    }

    @AfterEach
    void stopTheOtherUser() throws InterruptedException {
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        if (vsm != null) {
            vsm.releaseImmutable(); // create-base makes the base immutable, as pve does
        }
    }

    // ---- the lock directory and lock files

    @Test
    void aLockDirectoryPlantedByAnotherUserIsRefusedAndOnceRemovedNoEditIsLost() throws Exception {
        asNobody("mkdir", "-m", "0777", locks.toString()).ok();
        chmod(locks, "0777"); // mkdir -m is cut by nobody's umask
        asNobody("mkfifo", "-m", "0666", locks.resolve("storage-local.lock").toString())
                .ok();
        String refusal =
                "lock directory '" + locks + "' is owned by uid 65534 mode 0777, not root's alone: remove it (rm -r "
                        + locks + ") and run vsm again, or set VSM_LOCK_DIR to a directory of yours";

        Map<String, String> before = Tree.snapshot(sandbox);
        for (String[] change : new String[][] {
            {"alloc", "local", "100", "", "1M"},
            {"add", "dir", "st", "--path", sandbox.resolve("st").toString()}
        }) {
            Vsm.Result r = within(60, change); // the FIFO made alloc hang for ever
            assertThat(r.exit()).as("%s: %s", String.join(" ", change), r.err()).isEqualTo(1);
            assertThat(r.err().strip()).isEqualTo(refusal);
        }
        assertThat(Tree.snapshot(sandbox)).as("nothing changed").isEqualTo(before);

        // the fix the message names; vsm makes the directory again, root's and 0700
        HostTools.mustRun(Map.of(), "rm", "-r", locks.toString());
        vsm.run("status").ok();
        assertThat(mode(locks)).isEqualTo("700");
        assertThat(owner(locks)).isZero();

        // nobody deletes the config lock in a loop while root makes 16 edits at once
        Process deleter = startAsNobody(
                "sh", "-c", "while :; do rm -f '" + locks.resolve("storage-config.lock") + "' 2>/dev/null; done");
        vsm.env("VSM_LOCK_TIMEOUT", "120"); // 16 JVMs on 2 cores under load: this tests that nothing is lost, not speed
        List<Vsm.Started> adds = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            adds.add(vsm.start(
                    "add", "dir", "s" + i, "--path", sandbox.resolve("s" + i).toString()));
        }
        for (Vsm.Started add : adds) {
            add.finish().ok();
        }
        assertThat(deleter.isAlive()).as("the deleting loop ran throughout").isTrue();
        String config = Files.readString(vsm.config());
        for (int i = 0; i < 16; i++) {
            assertThat(config).as("edit %d landed", i).contains("  s" + i + ":");
        }
        assertThat(locks.resolve("storage-config.lock")).exists();
        assertThat(mode(locks.resolve("storage-config.lock"))).isEqualTo("600");
    }

    @Test
    void aFifoAsLockFileIsRefusedAtOnceNotWaitedOn() throws Exception {
        vsm.run("status").ok();
        Path fifo = locks.resolve("storage-local.lock");
        HostTools.mustRun(Map.of(), "mkfifo", "-m", "0600", fifo.toString());
        Vsm.Result r = within(60, "alloc", "local", "100", "", "1M");
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err().strip())
                .isEqualTo("lock file '" + fifo + "' is a fifo (owned by uid 0 mode 0600), not a regular file of"
                        + " root's: remove it (rm " + fifo + ") and run vsm again");
        assertThat(vsm.defaultLocal().resolve("images/100")).doesNotExist();
    }

    @Test
    void anotherUserCannotHoldRootsLocks() throws Exception {
        vsm.run("alloc", "local", "100", "", "1M").ok(); // the lock directory and storage-local.lock exist
        Path lock = locks.resolve("storage-local.lock");
        // a read-only open and a shared fcntl lock, as FileChannel.tryLock would conflict with
        Process holder = startAsNobody(
                "/usr/bin/python3",
                "-c",
                "import fcntl,sys,time\n"
                        + "f = open(sys.argv[1], 'rb')\nfcntl.lockf(f, fcntl.LOCK_SH)\nprint('held', flush=True)\ntime.sleep(120)\n",
                lock.toString());
        String said = new String(holder.getInputStream().readNBytes(5), StandardCharsets.UTF_8);
        assertThat(said).as("nobody could open root's lock file and hold it").doesNotContain("held");
        assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(holder.exitValue()).isNotZero();
        vsm.env("VSM_LOCK_TIMEOUT", "3");
        vsm.run("alloc", "local", "100", "", "1M").ok();
        assertThat(mode(locks)).isEqualTo("700");
        assertThat(mode(lock)).isEqualTo("600");
    }

    @Test
    void aPlantedClusterCacheIsNeverRead() throws Exception {
        // cluster mode with no ZooKeeper to reach: read-only commands fall back to the cache in the lock directory
        vsm.writeConfig(ClusterEnsemble.clusterBlock("127.0.0.1:1", "n1", "/vsm", 2));
        ClusterEnsemble.writeSecret(vsm.config().resolveSibling("cluster.secret"));
        String planted = "storages:\n  evil:\n    type: dir\n    path: /etc\n";
        asNobody("mkdir", locks.toString()).ok();
        chmod(locks, "0777");
        Files.writeString(locks.resolve("cluster-config.yaml"), planted);
        Files.setAttribute(locks.resolve("cluster-config.yaml"), "unix:uid", NOBODY);

        Vsm.Result r = vsm.run("path", "evil:100/vm-100-disk-0.raw");
        assertThat(r.exit()).as("stdout %s stderr %s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.out()).doesNotContain("/etc");
        assertThat(r.err().strip())
                .startsWith("lock directory '" + locks + "' is owned by uid 65534 mode 0777, not root's alone");

        // in root's own directory, a cache that is not root's own is refused as well
        HostTools.mustRun(Map.of(), "rm", "-r", locks.toString());
        Files.createDirectory(locks);
        chmod(locks, "0700");
        Path cache = Files.writeString(locks.resolve("cluster-config.yaml"), planted);
        Files.setAttribute(cache, "unix:uid", NOBODY);
        r = vsm.run("path", "evil:100/vm-100-disk-0.raw");
        assertThat(r.exit()).as("stdout %s stderr %s", r.out(), r.err()).isEqualTo(1);
        assertThat(r.out()).doesNotContain("/etc");
        assertThat(r.err().strip())
                .startsWith("no quorum!")
                .contains("the cached configuration cannot be used: file '" + cache
                        + "' is a regular file (owned by uid 65534 mode 0644), not a regular file of root's")
                .doesNotContain("\n");

        // the control: root's own cache is used
        Files.setAttribute(cache, "unix:uid", 0);
        chmod(cache, "0600");
        r = vsm.run("path", "evil:100/vm-100-disk-0.raw");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().strip()).isEqualTo("/etc/images/100/vm-100-disk-0.raw");
    }

    // ---- plugin jars and the configuration file

    @Test
    void noCodeRunsFromAPluginDirectoryJarOrSubDirectoryAnotherUserMayChange() throws Exception {
        Path plugins = sandbox.resolve("plugins");
        Path marker = sandbox.resolve("marker");
        Path jar = markerPlugin(plugins.resolve("marker.jar"), marker);

        chmod(plugins, "0777");
        Vsm.Result r = vsm.run("plugins").ok();
        assertThat(r.err().strip())
                .isEqualTo("warning: plugin directory " + plugins + " ($VSM_PLUGIN_DIR) not used: '" + plugins
                        + "' is writable by group or others (owned by uid 0 mode 0777): chmod go-w " + plugins
                        + " - no drop-in plugins loaded");
        assertThat(marker).as("the jar's static initializer ran").doesNotExist();

        chmod(plugins, "0755");
        Files.setAttribute(jar, "unix:uid", NOBODY);
        r = vsm.run("plugins").ok();
        assertThat(r.err().strip())
                .isEqualTo("warning: storage plugin " + jar + " not loaded: '" + jar + "' is owned by another user"
                        + " (not root) (owned by uid 65534 mode 0644): chown root " + jar + ", or use another one");
        assertThat(marker).doesNotExist();

        Path sub = Files.createDirectory(plugins.resolve("with-libs"));
        Files.move(jar, sub.resolve("marker.jar"));
        Files.setAttribute(sub.resolve("marker.jar"), "unix:uid", 0);
        chmod(sub, "0775");
        r = vsm.run("plugins").ok();
        assertThat(r.err().strip())
                .isEqualTo("warning: storage plugin " + sub + " not loaded: '" + sub + "' is writable by group or"
                        + " others (owned by uid 0 mode 0775): chmod go-w " + sub);
        assertThat(marker).doesNotExist();

        // the control: in a directory no one else may change, the same jar runs (and is refused for its API version)
        chmod(sub, "0755");
        r = vsm.run("plugins").ok();
        assertThat(marker)
                .as("the control: the marker plugin's code runs when trusted")
                .exists();
        assertThat(r.err()).contains("storage plugin " + sub).contains("not loaded");
    }

    @Test
    void asRootAConfigurationFileOrDirectoryOthersMayChangeIsRefused() throws Exception {
        Path file = vsm.config();
        Files.delete(file); // the harness's copy of the built-in default: here vsm makes the file
        vsm.run("add", "dir", "st", "--path", sandbox.resolve("st").toString()).ok();
        String content = Files.readString(file);
        String newFileMode = mode(file);
        Map<String, String> storage = Tree.snapshot(sandbox.resolve("st")); // add activated it: its directories exist

        chmod(file, "0666");
        for (String[] command :
                new String[][] {{"status"}, {"set", "st", "--path", "/"}, {"alloc", "st", "100", "", "1M"}}) {
            vsm.run(command)
                    .badInput(file + ": refused as root: '" + file
                            + "' is writable by group or others (owned by uid 0 mode 0666):" + " chmod go-w " + file);
        }
        assertThat(Files.readString(file)).isEqualTo(content);
        assertThat(Tree.snapshot(sandbox.resolve("st")))
                .as("no refused command touched the storage")
                .isEqualTo(storage);
        assertThat(sandbox.resolve("st/images/100")).doesNotExist();

        chmod(file, "0644");
        Files.setAttribute(file, "unix:uid", NOBODY);
        vsm.run("status")
                .badInput(file + ": refused as root: '" + file
                        + "' is owned by another user (not root) (owned by uid 65534" + " mode 0644): chown root "
                        + file + ", or use another one");

        Files.setAttribute(file, "unix:uid", 0);
        chmod(file.getParent(), "0777");
        vsm.run("status")
                .badInput(file + ": refused as root: '" + file.getParent()
                        + "' is writable by group or others (owned by uid 0" + " mode 0777): chmod go-w "
                        + file.getParent());
        Files.delete(file);
        vsm.run("add", "dir", "st", "--path", sandbox.resolve("st").toString())
                .badInput("refused as root: '" + file.getParent() + "'");
        assertThat(file).doesNotExist();

        chmod(file.getParent(), "0755");
        Files.writeString(file, content);
        chmod(file, "0640");
        vsm.run("set", "st", "--content", "images").ok();
        assertThat(mode(file)).as("a rewritten file keeps its mode").isEqualTo("640");
        assertThat(newFileMode).as("a new configuration file").isEqualTo("600");
    }

    // ---- volumes

    @Test
    void newVolumesAndTheirDirectoriesAreNotReadableByOtherUsers() throws Exception {
        Path st = sandbox.resolve("st");
        vsm.run("add", "dir", "st", "--path", st.toString(), "--content", "images,import")
                .ok();
        vsm.run("alloc", "st", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("alloc", "st", "100", "", "1M", "--format", "raw").ok();
        vsm.run("alloc", "st", "100", "", "1M", "--format", "vmdk").ok();
        vsm.run("alloc", "st", "102", "", "1M", "--format", "qcow2").ok();
        vsm.run("create-base", "st:102/vm-102-disk-0.qcow2").ok();
        vsm.run("clone", "st:102/base-102-disk-0.qcow2", "103").ok();
        Path source = sandbox.resolve("source.raw");
        HostTools.mustRun(Map.of(), "qemu-img", "create", "-q", "-f", "raw", source.toString(), "1M");
        vsm.run("import", "st", "104", source.toString(), "--format", "qcow2", "-q")
                .ok();
        Path stream = sandbox.resolve("stream");
        vsm.run("export", "st:100/vm-100-disk-1.raw", "raw+size", stream.toString(), "-q")
                .ok();
        vsm.run("import-stream", "st:105/vm-105-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        vsm.run("copy", "st:100/vm-100-disk-0.qcow2", "st", "--vmid", "106", "-q")
                .ok();
        vsm.run("rename", "st:100/vm-100-disk-1.raw", "107").ok();

        List<Path> files = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(st)) {
            walk.forEach(p -> (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? dirs : files).add(p));
        }
        assertThat(files).hasSize(8);
        for (Path f : files) {
            assertThat(Integer.parseInt(mode(f), 8) & 0037)
                    .as("mode of %s: %s", f, mode(f))
                    .isZero();
        }
        assertThat(mode(st.resolve("images/102/base-102-disk-0.qcow2"))).isEqualTo("440");
        assertThat(mode(st.resolve("images/100/vm-100-disk-0.qcow2"))).isEqualTo("640");
        for (Path d : dirs) {
            assertThat(mode(d)).as("mode of %s", d).isEqualTo("750");
        }
        Path disk = st.resolve("images/103/vm-103-disk-0.qcow2");
        HostTools.Result read = asNobody("cat", disk.toString());
        assertThat(read.exit()).as("nobody reads a guest's disk").isNotZero();
        assertThat(read.err()).contains("Permission denied");
    }

    @Test
    void anExportedStreamIsNotReadableByOtherUsers() throws Exception {
        Path st = sandbox.resolve("st");
        vsm.run("add", "dir", "st", "--path", st.toString(), "--content", "images")
                .ok();
        vsm.run("alloc", "st", "100", "", "1M", "--format", "raw").ok();
        Path stream = sandbox.resolve("stream");
        vsm.run("export", "st:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        assertThat(mode(stream)).isEqualTo("600");
        HostTools.Result read = asNobody("cat", stream.toString());
        assertThat(read.exit()).as("nobody reads the exported guest disk").isNotZero();
        assertThat(read.err()).contains("Permission denied");
    }

    // ---- helpers

    /** Runs vsm and waits at most {@code seconds} for it (a hang fails the test instead of stalling it). */
    private Vsm.Result within(int seconds, String... args) throws Exception {
        Vsm.Started run = vsm.start(args);
        if (!run.process().waitFor(seconds, TimeUnit.SECONDS)) {
            run.process().destroyForcibly();
            throw new AssertionError("vsm " + String.join(" ", args) + " hung (more than " + seconds + " s)");
        }
        return run.finish();
    }

    private static HostTools.Result asNobody(String... argv) {
        return HostTools.run(Map.of(), nobody(argv));
    }

    private Process startAsNobody(String... argv) throws IOException {
        Process p = new ProcessBuilder(nobody(argv))
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        started.add(p);
        return p;
    }

    private static String[] nobody(String... argv) {
        List<String> cmd = new ArrayList<>(
                List.of("/usr/bin/setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        cmd.addAll(List.of(argv));
        return cmd.toArray(String[]::new);
    }

    private static void chmod(Path path, String mode) {
        HostTools.mustRun(Map.of(), "chmod", mode, path.toString());
    }

    private static String mode(Path path) {
        return HostTools.mustRun(Map.of(), "stat", "-c", "%a", path.toString()).strip();
    }

    private static int owner(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * A plugin jar whose class creates {@code marker} in its static initializer, the moment the
     * class is initialised, and then declares storage API version 0 (so vsm refuses it, too late).
     */
    private Path markerPlugin(Path jar, Path marker) throws IOException {
        Path src = Files.createDirectories(sandbox.resolve("marker-src/markerplugin"));
        Files.writeString(src.resolve("MarkerPlugin.java"), """
                package markerplugin;

                public final class MarkerPlugin implements dev.vsm.spi.StoragePlugin {
                    static {
                        try {
                            java.nio.file.Files.createFile(java.nio.file.Path.of("%s"));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }

                    public int apiVersion() { return 0; }
                    public String type() { return "marker"; }
                    public dev.vsm.spi.PluginSchema schema() { return null; }
                    public dev.vsm.spi.Storage open(dev.vsm.spi.StorageConfig c, dev.vsm.spi.StorageContext x) { return null; }
                }
                """.formatted(marker));
        Path classes = Files.createDirectories(sandbox.resolve("marker-classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        String spi;
        try {
            spi = Path.of(StoragePlugin.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        int status = javac.run(
                null,
                messages,
                messages,
                "--release",
                "17",
                "-proc:none",
                "-d",
                classes.toString(),
                "-cp",
                spi,
                src.resolve("MarkerPlugin.java").toString());
        assertThat(status)
                .as("the marker plugin compiles: %s", messages.toString(StandardCharsets.UTF_8))
                .isZero();
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("META-INF/services/dev.vsm.spi.StoragePlugin"));
            out.write("markerplugin.MarkerPlugin\n".getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
            out.putNextEntry(new JarEntry("markerplugin/MarkerPlugin.class"));
            Files.copy(classes.resolve("markerplugin/MarkerPlugin.class"), out);
            out.closeEntry();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return jar;
    }
}
