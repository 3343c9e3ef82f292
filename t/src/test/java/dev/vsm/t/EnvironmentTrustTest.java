package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.RootTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * As root, what vsm takes from the environment must not let another local user steer root: a
 * program ({@code $VSM_QEMU_IMG}), a directory ({@code $VSM_SYSFS}, the built-in storage's
 * {@code $HOME}/{@code $XDG_DATA_HOME}) or a JVM option ({@code VSM_JAVA_OPTS},
 * {@code JAVA_TOOL_OPTIONS}) that names a place user {@code nobody} may change is refused (exit
 * 2, one line) by the rule that keeps plugin jars, and nothing of theirs runs; so is an
 * {@code LVM_SYSTEM_DIR} whose lvm.conf they may change. Each attack puts
 * nobody's code or directory in a directory of theirs of mode 1777, runs the real
 * {@code cli/vsm} as root, and checks that the code did not run; each control runs the same from
 * a directory of root's.
 */
@RootTest
class EnvironmentTrustTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path pub;
    private Path marker;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox).processes();
        pub = Files.createDirectory(sandbox.resolve("pub"));
        chmod(pub, "1777");
        Files.setAttribute(pub, "unix:uid", NOBODY);
        marker = sandbox.resolve("marker");
    }

    @Test
    void aQemuImgAnotherUserMayChangeDoesNotRun() throws IOException {
        Path program = pub.resolve("qemu-img");
        Files.writeString(program, "#!/bin/sh\ntouch " + marker + "\nexec qemu-img \"$@\"\n");
        chmod(program, "0755");
        Files.setAttribute(program, "unix:uid", NOBODY);
        vsm.env("VSM_QEMU_IMG", program.toString());
        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2")
                .badInput("$VSM_QEMU_IMG '" + program + "' refused as root: '" + program
                        + "' is owned by another user (not root) (owned by uid 65534 mode 0755): chown root " + program
                        + ", or use another one, or unset VSM_QEMU_IMG");
        assertThat(marker).as("nobody's qemu-img ran as root").doesNotExist();

        Files.setAttribute(program, "unix:uid", 0);
        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2")
                .badInput("$VSM_QEMU_IMG '" + program + "' refused as root: '" + pub
                        + "' is owned by another user (not root) (owned by uid 65534 mode 1777)");
        assertThat(marker).doesNotExist();
        assertThat(vsm.defaultLocal().resolve("images/100")).doesNotExist();

        // the control: from a directory of root's it runs
        Path bin = Files.createDirectory(sandbox.resolve("bin"));
        Files.move(program, bin.resolve("qemu-img"));
        vsm.env("VSM_QEMU_IMG", bin.resolve("qemu-img").toString());
        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2").ok();
        assertThat(marker).as("the control: root's own qemu-img runs").exists();
    }

    @Test
    void aSysfsAnotherUserMayChangeIsRefused() throws IOException {
        // a planted sysfs answers which devices are in use: one with no holders hides a mapped disk
        Path sys = Files.createDirectories(pub.resolve("sys/class/block"));
        Files.setAttribute(sys.getParent(), "unix:uid", NOBODY);
        vsm.env("VSM_SYSFS", sys.getParent().toString());
        vsm.run("status")
                .badInput("$VSM_SYSFS '" + sys.getParent() + "' refused as root: '" + sys.getParent()
                        + "' is owned by another user (not root) (owned by uid 65534 mode 0755): chown root "
                        + sys.getParent() + ", or use another one, or unset VSM_SYSFS (the kernel's is /sys)");

        Files.setAttribute(sys.getParent(), "unix:uid", 0);
        vsm.run("status").badInput("$VSM_SYSFS '" + sys.getParent() + "' refused as root: '" + pub + "'");

        vsm.env("VSM_SYSFS", "/sys").run("status").ok(); // the control
    }

    /**
     * lvm.conf decides what lvm2, run by root, scans, runs and writes: here its log file, which
     * root's lvm2 creates and appends to wherever the file says. Another user's lvm.conf, or one
     * they may change inside root's directory, is refused before any lvm2 runs; root's own is read.
     */
    @Test
    void anLvmConfigurationAnotherUserMayChangeIsRefused() throws IOException {
        String conf = """
                devices {
                    global_filter = [ "r|.*|" ]
                    use_devicesfile = 0
                    obtain_device_list_from_udev = 0
                }
                log {
                    file = "%s"
                    level = 7
                }
                """.formatted(marker);
        Path theirs = Files.createDirectory(pub.resolve("lvm"));
        Files.setAttribute(Files.writeString(theirs.resolve("lvm.conf"), conf), "unix:uid", NOBODY);
        Files.setAttribute(theirs, "unix:uid", NOBODY);
        vsm.env("LVM_SYSTEM_DIR", theirs.toString());
        vsm.run("scan", "lvm")
                .badInput("$LVM_SYSTEM_DIR '" + theirs + "' refused as root: '" + theirs
                        + "' is owned by another user (not root) (owned by uid 65534 mode 0755): chown root " + theirs
                        + ", or use another one, or unset LVM_SYSTEM_DIR");
        assertThat(marker).as("root's lvm2 read nobody's lvm.conf").doesNotExist();

        // a directory of root's holding nobody's lvm.conf
        Path dir = Files.createDirectory(sandbox.resolve("lvm"));
        Path file = Files.move(theirs.resolve("lvm.conf"), dir.resolve("lvm.conf"));
        vsm.env("LVM_SYSTEM_DIR", dir.toString());
        vsm.run("scan", "lvm")
                .badInput("$LVM_SYSTEM_DIR '" + dir + "' refused as root: '" + file
                        + "' is owned by another user (not root)");
        assertThat(marker).doesNotExist();
        Files.setAttribute(file, "unix:uid", 0);
        chmod(file, "0666");
        vsm.run("scan", "lvm")
                .badInput("$LVM_SYSTEM_DIR '" + dir + "' refused as root: '" + file
                        + "' is writable by group or others (owned by uid 0 mode 0666): chmod go-w " + file);
        assertThat(marker).doesNotExist();

        // the control: root's own lvm.conf is read
        chmod(file, "0644");
        vsm.run("scan", "lvm").ok();
        assertThat(marker).as("the control: lvm2 read root's lvm.conf").exists();
    }

    @Test
    void theBuiltInStorageIsNotMadeInAnotherUsersHome() throws IOException {
        if (Files.exists(Path.of("/etc/vsm/storage.yaml"))) {
            throw HostTools.unavailable("a host without /etc/vsm/storage.yaml (the built-in default runs only then)");
        }
        Path home = Files.createDirectory(pub.resolve("home"));
        Files.setAttribute(home, "unix:uid", NOBODY);
        vsm.env(Map.of("VSM_CONFIG", " ", "XDG_DATA_HOME", " ", "HOME", home.toString())); // as sudo may leave them
        Path local = home.resolve(".local/share/vsm/local");
        vsm.run("alloc", "local", "100", "", "1M")
                .badInput("the built-in storage 'local' (" + local + ", from $XDG_DATA_HOME or $HOME) refused as"
                        + " root: '" + home + "' is owned by another user (not root) (owned by uid 65534 mode 0755):"
                        + " chown root " + home + ", or use another one, or run with root's HOME (sudo -H) or name a"
                        + " configuration file (--config)");
        assertThat(home.resolve(".local"))
                .as("root made directories in nobody's home")
                .doesNotExist();

        vsm.env("XDG_DATA_HOME", pub.toString());
        vsm.run("status")
                .badInput("the built-in storage 'local' (" + pub.resolve("vsm/local")
                        + ", from $XDG_DATA_HOME or $HOME) refused as root: '" + pub + "' is owned by another user");
        assertThat(pub.resolve("vsm")).doesNotExist();

        // the control: root's own data directory
        vsm.env("XDG_DATA_HOME", sandbox.resolve("data").toString());
        vsm.run("alloc", "local", "100", "", "1M").ok();
        assertThat(sandbox.resolve("data/vsm/local/images/100/vm-100-disk-0.raw"))
                .isRegularFile();
        assertThat(Path.of("/etc/vsm/storage.yaml")).doesNotExist();
    }

    @Test
    void jvmOptionsThatLoadAnotherUsersCodeAreRefused() throws IOException {
        Path agent = markerAgent(pub.resolve("agent.jar"));
        Files.setAttribute(agent, "unix:uid", NOBODY);
        for (String variable : new String[] {"VSM_JAVA_OPTS", "JAVA_TOOL_OPTIONS"}) {
            String option = "-javaagent:" + agent;
            Vsm.Result r = new Vsm(sandbox)
                    .processes()
                    .env(variable, "-Xmx256m " + option)
                    .run("apiinfo");
            r.badInput("vsm: " + variable + ": '" + option + "' refused as root: '" + agent
                    + "' is owned by another user (not root) (owned by uid 65534 mode 0644): chown root " + agent
                    + ", or use another one, or unset " + variable);
            assertThat(marker).as("nobody's agent ran as root").doesNotExist();
        }
        for (String option : new String[] {
            "-agentlib:jdwp=transport=dt_socket,server=y,address=127.0.0.1:1", // a debugger anyone may attach
            "-XX:OnError=" + pub.resolve("x"),
            "-Xbootclasspath/a:" + agent,
            "@" + pub.resolve("args")
        }) {
            new Vsm(sandbox)
                    .processes()
                    .env("VSM_JAVA_OPTS", option)
                    .run("apiinfo")
                    .badInput("vsm: VSM_JAVA_OPTS: '" + option + "' refused as root: only -Xms, -Xmx");
        }
        Path logback = Files.writeString(pub.resolve("logback.xml"), "<configuration/>");
        new Vsm(sandbox)
                .processes()
                .env("VSM_JAVA_OPTS", "-Dlogback.configurationFile=" + logback)
                .run("apiinfo")
                .badInput("refused as root: '" + pub + "' is owned by another user");

        // the controls: sizes and flags pass; the same agent from root's directory runs
        new Vsm(sandbox)
                .processes()
                .env(
                        "VSM_JAVA_OPTS",
                        "-Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dzookeeper.client.secure=false")
                .run("apiinfo")
                .ok();
        Path rootAgent = Files.move(agent, sandbox.resolve("agent.jar"));
        Files.setAttribute(rootAgent, "unix:uid", 0);
        new Vsm(sandbox)
                .processes()
                .env("VSM_JAVA_OPTS", "-javaagent:" + rootAgent)
                .run("apiinfo")
                .ok();
        assertThat(marker).as("the control: root's own agent runs").exists();
    }

    /** An agent jar whose {@code premain} creates the marker, before vsm's main runs. */
    private Path markerAgent(Path jar) throws IOException {
        Path src = Files.createDirectories(sandbox.resolve("agent-src/markeragent"));
        Files.writeString(src.resolve("MarkerAgent.java"), """
                package markeragent;

                public final class MarkerAgent {
                    public static void premain(String args) throws java.io.IOException {
                        java.nio.file.Files.createFile(java.nio.file.Path.of("%s"));
                    }
                }
                """.formatted(marker));
        Path classes = Files.createDirectories(sandbox.resolve("agent-classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int status = javac.run(
                null,
                messages,
                messages,
                "--release",
                "17",
                "-proc:none",
                "-d",
                classes.toString(),
                src.resolve("MarkerAgent.java").toString());
        assertThat(status)
                .as("the marker agent compiles: %s", messages.toString(StandardCharsets.UTF_8))
                .isZero();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Premain-Class", "markeragent.MarkerAgent");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.putNextEntry(new JarEntry("markeragent/MarkerAgent.class"));
            Files.copy(classes.resolve("markeragent/MarkerAgent.class"), out);
            out.closeEntry();
        }
        return jar;
    }

    private static void chmod(Path path, String mode) {
        HostTools.mustRun(Map.of(), "chmod", mode, path.toString());
    }
}
