package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.Archives;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.VmaWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups on a dir storage through the real {@code cli/vsm}: {@code prune-backups} (pve's marks, the
 * storage's {@code prune-backups} property, protected and renamed backups left alone),
 * {@code update-attributes} (notes, protection, {@code max-protected-backups}), {@code list}'s backup
 * fields, {@code free} of a backup with its log and notes files, and {@code extractconfig} of tar and
 * VMA archives made with the real tools. Bad input: exit 2, one line, nothing changed.
 */
class BackupsTest {
    private static final String QM = "boot: order=scsi0\nmemory: 2048\nname: vm100\n";
    private static final String PCT = "arch: amd64\nhostname: ct101\n";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path dump;

    @BeforeEach
    void setUp() throws IOException {
        Archives.requireTools();
        vsm = new Vsm(sandbox);
        dump = sandbox.resolve("bk/dump");
        Files.createDirectories(dump);
        Files.createDirectories(sandbox.resolve("bk/images"));
        Files.createDirectories(sandbox.resolve("plain"));
        vsm.writeConfig("""
                storages:
                  bk:
                    type: dir
                    path: %s
                    content: [backup, images]
                    prune-backups: keep-last=2
                  plain:
                    type: dir
                    path: %s
                    content: [images]
                """.formatted(sandbox.resolve("bk"), sandbox.resolve("plain")));
    }

    private Path backup(String name) throws IOException {
        Path p = dump.resolve(name);
        Files.writeString(p, "archive " + name);
        return p;
    }

    private Map<String, String> marks(JsonNode list) {
        Map<String, String> marks = new HashMap<>();
        list.forEach(e -> marks.put(
                e.get("volid").asText().replace("bk:backup/", ""), e.get("mark").asText()));
        return marks;
    }

    /**
     * A backup directory others may write (a sticky upload share): files another user names like
     * backups, dated in the future, would be the newest and make keep-last remove the real ones
     * (pve removes them so). They are left out of the prune, with a warning each, and left alone.
     */
    @Test
    void filesAnotherUserPlantedInAStickyBackupDirectoryDoNotPruneTheRealBackups() throws IOException {
        HostTools.require("acts as another local user", "/usr/bin/setpriv", "/usr/bin/touch", "/usr/bin/chmod");
        List<Path> real = List.of(
                backup("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst"),
                backup("vzdump-qemu-100-2020_01_02-10_00_00.vma.zst"));
        HostTools.mustRun(
                Map.of(),
                "chmod",
                "0755",
                sandbox.toString(),
                sandbox.resolve("bk").toString());
        HostTools.mustRun(Map.of(), "chmod", "1777", dump.toString());
        List<String> planted = List.of(
                "vzdump-qemu-100-2099_01_01-10_00_00.vma.zst",
                "vzdump-qemu-100-2099_01_02-10_00_00.vma.zst",
                "vzdump-qemu-100-2099_01_03-10_00_00.vma.zst");
        for (String name : planted) {
            HostTools.mustRun(
                    Map.of(), nobody("/usr/bin/touch", dump.resolve(name).toString()));
        }
        String full = "vzdump-qemu-100-2099_02_01-10_00_00.vma.zst"; // not empty, but nobody's
        HostTools.mustRun(Map.of(), nobody("/bin/sh", "-c", "echo data > " + dump.resolve(full)));

        Vsm.Result pruned = vsm.run("prune-backups", "bk", "--keep-last", "1").ok();
        assertThat(real.get(0))
                .as("the older real backup, pruned by keep-last=1")
                .doesNotExist();
        assertThat(real.get(1)).as("the newest real backup").exists();
        for (String name : planted) {
            assertThat(dump.resolve(name)).exists();
            assertThat(pruned.err())
                    .contains("warning: leaving backup 'bk:backup/" + name + "' alone: owned by uid 65534, not by its"
                            + " directory's owner (uid 0)");
        }
        assertThat(dump.resolve(full)).exists();
        assertThat(pruned.out()).doesNotContain("2099");
    }

    private static String[] nobody(String... argv) {
        String[] all = new String[argv.length + 4];
        all[0] = "/usr/bin/setpriv";
        all[1] = "--reuid=65534";
        all[2] = "--regid=65534";
        all[3] = "--clear-groups";
        System.arraycopy(argv, 0, all, 4, argv.length);
        return all;
    }

    @Test
    void pruneBackupsMarksAsPveAndRemovesOnlyWhatItMarksRemove() throws IOException {
        for (String t :
                List.of("2020_01_01-10_00_00", "2020_01_02-10_00_00", "2020_01_03-10_00_00", "2020_01_04-10_00_00")) {
            backup("vzdump-qemu-100-" + t + ".vma.zst");
            Files.writeString(dump.resolve("vzdump-qemu-100-" + t + ".log"), "log");
        }
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst.notes"), "old");
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_01_02-10_00_00.vma.zst.protected"), "");
        backup("vzdump-lxc-100-2020_01_01-10_00_00.tar.zst");
        backup("vzdump-qemu-101-2020_01_01-10_00_00.vma");
        backup("my-copy-of-100.vma.zst");

        Map<String, String> before = Tree.snapshot(sandbox);
        JsonNode dry = vsm.run("prune-backups", "bk", "--dry-run", "--output-format", "json")
                .ok()
                .json();
        assertThat(dry.get("dryrun").asBoolean()).isTrue();
        assertThat(marks(dry.get("list")))
                .isEqualTo(Map.of(
                        "vzdump-qemu-100-2020_01_01-10_00_00.vma.zst", "remove",
                        "vzdump-qemu-100-2020_01_02-10_00_00.vma.zst", "protected",
                        "vzdump-qemu-100-2020_01_03-10_00_00.vma.zst", "keep",
                        "vzdump-qemu-100-2020_01_04-10_00_00.vma.zst", "keep",
                        "vzdump-lxc-100-2020_01_01-10_00_00.tar.zst", "keep",
                        "vzdump-qemu-101-2020_01_01-10_00_00.vma", "keep",
                        "my-copy-of-100.vma.zst", "renamed"));
        for (JsonNode e : dry.get("list")) {
            boolean renamed = e.get("mark").asText().equals("renamed");
            assertThat(e.has("ctime") && e.has("type") && e.has("mark"))
                    .as("%s", e)
                    .isTrue();
            assertThat(e.has("vmid")).as("%s", e).isEqualTo(!renamed);
        }

        List<String> text = vsm.run(
                        "prune-backups", "bk", "--dry-run", "--vmid", "100", "--type", "qemu", "--keep-last", "1")
                .ok()
                .lines();
        assertThat(text)
                .containsExactly(
                        "NOTE: this is only a preview and might not be what a subsequent",
                        "prune call does if backups are removed/added in the meantime.",
                        "",
                        String.format("%-54s %15s %10s", "Backup", "Backup-ID", "Prune-Mark"),
                        String.format(
                                "%-54s %15s %10s",
                                "bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst", "qemu/100", "remove"),
                        String.format(
                                "%-54s %15s %10s",
                                "bk:backup/vzdump-qemu-100-2020_01_02-10_00_00.vma.zst", "qemu/100", "protected"),
                        String.format(
                                "%-54s %15s %10s",
                                "bk:backup/vzdump-qemu-100-2020_01_03-10_00_00.vma.zst", "qemu/100", "remove"),
                        String.format(
                                "%-54s %15s %10s",
                                "bk:backup/vzdump-qemu-100-2020_01_04-10_00_00.vma.zst", "qemu/100", "keep"));
        assertThat(vsm.run("prune-backups", "bk", "--dry-run", "--vmid", "999")
                        .ok()
                        .out())
                .isEqualTo("No backups found\n");
        assertThat(Tree.snapshot(sandbox)).as("a dry run changes nothing").isEqualTo(before);

        // the storage's prune-backups: keep-last=2
        assertThat(vsm.run("prune-backups", "bk").ok().out())
                .isEqualTo("removing backup 'bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst'\n");
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst")).doesNotExist();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.log"))
                .as("its log goes with it")
                .doesNotExist();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst.notes"))
                .as("its notes go with it")
                .doesNotExist();

        vsm.run("prune-backups", "bk", "--keep-last", "1").ok();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_02-10_00_00.vma.zst"))
                .as("protected")
                .exists();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_03-10_00_00.vma.zst")).doesNotExist();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_04-10_00_00.vma.zst")).exists();
        assertThat(dump.resolve("my-copy-of-100.vma.zst")).as("renamed").exists();
        assertThat(dump.resolve("vzdump-lxc-100-2020_01_01-10_00_00.tar.zst")).exists();
    }

    @Test
    void pruneBackupsBadInputChangesNothing() throws IOException {
        backup("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst");
        backup("vzdump-qemu-100-2020_01_02-10_00_00.vma.zst");
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("prune-backups", "bk", "--keep-last", "x")
                .badInput("prune-backups: keep-last: type check ('integer') failed - got 'x'");
        vsm.run("prune-backups", "bk", "--keep-last", "-1").badInput("keep-last: value must have a minimum value of 0");
        vsm.run("prune-backups", "bk", "--keep-all", "1", "--keep-last", "1")
                .badInput("keep-all cannot be set together with other options.");
        vsm.run("prune-backups", "bk", "--keep-last", "1,keep-all=1")
                .badInput("keep-last: type check failed - got '1,keep-all=1'");
        vsm.run("prune-backups", "bk", "--keep-last", "1", "--type", "openvz")
                .badInput("type: value 'openvz' does not have a value in the enumeration 'qemu, lxc'");
        vsm.run("prune-backups", "bk", "--keep-last", "1", "--vmid", "12")
                .badInput("vmid: value does not look like a valid VM ID");
        vsm.run("prune-backups", "plain", "--keep-last", "1").badInput("storage 'plain' does not support backups");
        vsm.run("prune-backups", "nosuch", "--keep-last", "1").badInput("storage 'nosuch' does not exist");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        vsm.run("set", "bk", "--delete", "prune-backups").ok();
        before = Tree.snapshot(sandbox);
        vsm.run("prune-backups", "bk").badInput("no prune-backups options configured for storage 'bk'");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void backupPropertiesAreCheckedAsPveChecksThem() throws IOException {
        String good = Files.readString(vsm.config());
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("set", "bk", "--prune-backups", "keep-bogus=3")
                .badInput("prune-backups: invalid format - invalid key in comma-separated list property: keep-bogus");
        vsm.run("set", "bk", "--prune-backups", "keep-all=1,keep-daily=3")
                .badInput("prune-backups: invalid format - keep-all cannot be set together with other options.");
        vsm.run("set", "bk", "--max-protected-backups", "-2")
                .badInput("max-protected-backups: value must have a minimum value of -1");
        vsm.run("set", "bk", "--bwlimit", "default=fast")
                .badInput("bwlimit: invalid format - default: type check ('number') failed - got 'fast'");
        vsm.run("set", "bk", "--bwlimit", "upload=10")
                .badInput("bwlimit: invalid format - invalid key in comma-separated list property: upload");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        vsm.run(
                        "set",
                        "bk",
                        "--prune-backups",
                        "keep-daily=7,keep-weekly=4",
                        "--max-protected-backups",
                        "3",
                        "--bwlimit",
                        "default=1024,restore=512.5")
                .ok();
        String file = vsm.config().toString();
        Files.writeString(vsm.config(), good.replace("keep-last=2", "keep-bogus=2"));
        vsm.run("status")
                .badInput(
                        file
                                + ":6: storage 'bk': prune-backups: invalid format - invalid key in comma-separated list property: keep-bogus");
        vsm.run("list", "bk")
                .badInput(
                        file
                                + ":6: storage 'bk': prune-backups: invalid format - invalid key in comma-separated list property: keep-bogus");
    }

    @Test
    void notesAndProtection() throws IOException {
        Path a = backup("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst");
        backup("vzdump-qemu-100-2020_01_02-10_00_00.vma.zst");
        backup("vzdump-lxc-100-2020_01_03-10_00_00.tar.gz");
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.log"), "log");
        String va = "bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst";
        String vb = "bk:backup/vzdump-qemu-100-2020_01_02-10_00_00.vma.zst";
        String vc = "bk:backup/vzdump-lxc-100-2020_01_03-10_00_00.tar.gz";

        Map<String, String> before = Tree.snapshot(sandbox);
        assertThat(vsm.run("update-attributes", va, "--notes", "x", "--protected", "1", "--dry-run")
                        .ok()
                        .lines())
                .containsExactly("+ write " + a + ".notes", "+ write " + a + ".protected");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        vsm.run("update-attributes", va, "--notes", "before the upgrade – ok\nsecond line", "--protected", "1")
                .ok();
        assertThat(Files.readString(Path.of(a + ".notes"))).isEqualTo("before the upgrade – ok\nsecond line");
        assertThat(Path.of(a + ".protected")).exists();

        JsonNode list = vsm.run("list", "bk", "--output-format", "json").ok().json();
        assertThat(list).hasSize(3);
        assertThat(list.get(0).get("volid").asText()).isEqualTo(vc);
        assertThat(list.get(0).get("subtype").asText()).isEqualTo("lxc");
        assertThat(list.get(0).has("notes") || list.get(0).has("protected")).isFalse();
        assertThat(list.get(1).get("volid").asText()).isEqualTo(va);
        assertThat(list.get(1).get("subtype").asText()).isEqualTo("qemu");
        assertThat(list.get(1).get("notes").asText()).as("the first line").isEqualTo("before the upgrade – ok");
        assertThat(list.get(1).get("protected").asBoolean()).isTrue();

        before = Tree.snapshot(sandbox);
        vsm.run("free", va)
                .badInput(
                        "cannot remove protected volume 'backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst' on 'bk'");
        vsm.run("update-attributes", va, "--protected", "maybe")
                .badInput("protected: type check ('boolean') failed - got 'maybe'");
        vsm.run("update-attributes", "bk:backup/vzdump-qemu-100-2020_01_09-10_00_00.tar.xz", "--notes", "x")
                .badInput("unable to parse");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        // max-protected-backups counts a guest's protected backups of the same type
        vsm.run("set", "bk", "--max-protected-backups", "1").ok();
        before = Tree.snapshot(sandbox);
        vsm.run("update-attributes", vb, "--protected", "1")
                .badInput("The number of protected backups per guest is limited to 1 on storage 'bk'");
        vsm.run("update-attributes", vb, "--notes", "x", "--protected", "1")
                .badInput("The number of protected backups per guest is limited to 1 on storage 'bk'");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
        vsm.run("update-attributes", vc, "--protected", "1").ok();
        vsm.run("update-attributes", va, "--protected", "1").ok(); // already protected: no new one

        vsm.run("update-attributes", va, "--protected", "0", "--notes", "").ok();
        assertThat(Path.of(a + ".protected")).doesNotExist();
        assertThat(Path.of(a + ".notes")).doesNotExist();
        vsm.run("update-attributes", va, "--notes", "again").ok();
        assertThat(vsm.run("free", va).ok().out()).isEqualTo("Removed volume '" + va + "'\n");
        assertThat(a).doesNotExist();
        assertThat(Path.of(a + ".notes")).as("free removes the notes").doesNotExist();
        assertThat(dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.log"))
                .as("and the log")
                .doesNotExist();
    }

    @Test
    void onlyBackupsHaveNotesAndProtection() {
        vsm.run("alloc", "bk", "100", "", "1M").ok();
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("update-attributes", "bk:100/vm-100-disk-0.raw", "--notes", "x")
                .badInput("only backups can have notes");
        vsm.run("update-attributes", "bk:100/vm-100-disk-0.raw", "--protected", "1")
                .badInput("only backups support attribute 'protected'");
        vsm.run("extractconfig", "bk:100/vm-100-disk-0.raw")
                .badInput("unable to use volume bk:100/vm-100-disk-0.raw - content type needs to be 'backup'");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void notesFilesAreNeitherReadNorWrittenThroughLinks() throws IOException {
        Path a = backup("vzdump-qemu-100-2020_01_01-10_00_00.vma.zst");
        Path secret = Files.writeString(sandbox.resolve("secret"), "root:hash:19000\n");
        Files.createSymbolicLink(Path.of(a + ".notes"), secret);

        JsonNode list = vsm.run("list", "bk", "--output-format", "json").ok().json();
        assertThat(list.get(0).has("notes")).as("a link is no notes file").isFalse();

        vsm.run("update-attributes", "bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst", "--notes", "mine")
                .ok();
        assertThat(Files.readString(secret)).isEqualTo("root:hash:19000\n");
        assertThat(Files.isSymbolicLink(Path.of(a + ".notes"))).isFalse();
        assertThat(Files.readString(Path.of(a + ".notes"))).isEqualTo("mine");
    }

    @Test
    void extractconfigReadsTarAndVmaArchives() throws IOException {
        Archives.tar(
                dump.resolve("vzdump-lxc-101-2020_01_01-10_00_00.tar.zst"),
                Map.of("./etc/vzdump/pct.conf", PCT),
                "zst");
        Archives.tar(
                dump.resolve("vzdump-lxc-101-2020_01_02-10_00_00.tar.lzo"),
                Map.of("./etc/vzdump/pct.conf", PCT),
                "lzo");
        Archives.tar(
                dump.resolve("vzdump-lxc-101-2020_01_03-10_00_00.tar.gz"), Map.of("./etc/vzdump/pct.conf", PCT), "gz");
        Archives.tar(
                dump.resolve("vzdump-lxc-101-2020_01_04-10_00_00.tar"), Map.of("./etc/vzdump/pct.conf", PCT), null);
        byte[] vma = new VmaWriter()
                .config("qemu-server.conf", QM)
                .device("drive-scsi0", 1L << 30)
                .header();
        byte[] withData = Arrays.copyOf(vma, vma.length + (1 << 20));
        for (String suffix : List.of("", ".gz", ".lzo", ".zst")) {
            Archives.write(
                    dump.resolve("vzdump-qemu-100-2020_01_01-10_00_00.vma" + suffix),
                    withData,
                    suffix.isEmpty() ? null : suffix.substring(1));
        }
        Map<String, String> before = Tree.snapshot(sandbox);
        for (String name : List.of(
                "vzdump-lxc-101-2020_01_01-10_00_00.tar.zst",
                "vzdump-lxc-101-2020_01_02-10_00_00.tar.lzo",
                "vzdump-lxc-101-2020_01_03-10_00_00.tar.gz",
                "vzdump-lxc-101-2020_01_04-10_00_00.tar")) {
            assertThat(vsm.run("extractconfig", "bk:backup/" + name).ok().out())
                    .as(name)
                    .isEqualTo(PCT + "\n");
        }
        for (String suffix : List.of("", ".gz", ".lzo", ".zst")) {
            String volid = "bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma" + suffix;
            assertThat(vsm.run("extractconfig", volid).ok().out()).as(volid).isEqualTo(QM + "\n");
        }
        assertThat(vsm.run(
                                "extractconfig",
                                "bk:backup/vzdump-qemu-100-2020_01_01-10_00_00.vma.zst",
                                "--output-format",
                                "json")
                        .ok()
                        .json()
                        .get("config")
                        .asText())
                .isEqualTo(QM);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void extractconfigRefusesHostileArchives() throws IOException {
        byte[] vma = new VmaWriter()
                .config("qemu-server.conf", QM)
                .device("drive-scsi0", 1L << 30)
                .header();
        byte[] badMagic = vma.clone();
        badMagic[0] = 'X';
        byte[] hugeHeader = vma.clone();
        java.nio.ByteBuffer.wrap(hugeHeader).putInt(56, 0x7fffffff);
        byte[] blobOutside = vma.clone();
        java.nio.ByteBuffer.wrap(blobOutside).putInt(52, 0x10000000);
        byte[] dataNowhere = vma.clone();
        java.nio.ByteBuffer.wrap(dataNowhere).putInt(3068, 0x00ffffff);
        Map<String, byte[]> hostile = Map.of(
                "2020_01_01-10_00_00.vma", Arrays.copyOf(vma, 4000),
                "2020_01_02-10_00_00.vma", badMagic,
                "2020_01_03-10_00_00.vma.zst", hugeHeader,
                "2020_01_04-10_00_00.vma", VmaWriter.sign(blobOutside),
                "2020_01_05-10_00_00.vma.gz", VmaWriter.sign(dataNowhere));
        for (Map.Entry<String, byte[]> h : hostile.entrySet()) {
            String name = "vzdump-qemu-100-" + h.getKey();
            String suffix = name.substring(name.lastIndexOf(".vma") + 4);
            Archives.write(dump.resolve(name), h.getValue(), suffix.isEmpty() ? null : suffix.substring(1));
        }
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_01_06-10_00_00.vma.lzo"), "not lzop");
        Files.writeString(dump.resolve("vzdump-lxc-101-2020_01_01-10_00_00.tar.gz"), "not gzip");
        Files.write(dump.resolve("custom-100.vma"), vma); // a backup, but not named as vzdump names one
        // a decompression bomb: 256 MiB of zeros before the configuration (4 GiB took 68 KB)
        Archives.tarBomb(
                dump.resolve("vzdump-lxc-101-2020_01_07-10_00_00.tar.zst"),
                Map.of(),
                256L << 20,
                Map.of("./etc/vzdump/pct.conf", PCT),
                "zst");
        Map<String, String> before = Tree.snapshot(sandbox);
        Map<String, String> expected = Map.of(
                "2020_01_01-10_00_00.vma", "can't read vma header - got EOF",
                "2020_01_02-10_00_00.vma", "not a vma file - wrong magic number",
                "2020_01_03-10_00_00.vma.zst", "wrong vma header size 2147483647",
                "2020_01_04-10_00_00.vma", "wrong vma blob buffer size 12288/268435456",
                "2020_01_05-10_00_00.vma.gz", "vma contains invalid data pointers",
                "2020_01_06-10_00_00.vma.lzo", "command 'lzop -d -c' failed");
        expected.forEach((name, message) ->
                vsm.run("extractconfig", "bk:backup/vzdump-qemu-100-" + name).badInput(message));
        vsm.run("extractconfig", "bk:backup/vzdump-lxc-101-2020_01_01-10_00_00.tar.gz")
                .badInput("command 'zcat' failed");
        vsm.process()
                .run("extractconfig", "bk:backup/vzdump-lxc-101-2020_01_07-10_00_00.tar.zst")
                .badInput("no configuration within its first 64 MiB unpacked (vzdump writes it first): not reading on");
        vsm.run("extractconfig", "bk:backup/custom-100.vma").badInput("ERROR: couldn't determine archive info from '");
        // a backup that is not there, whatever its name: pvesm's words (its activate_volume)
        for (String missing : List.of(
                "vzdump-lxc-101-2020_01_09-10_00_00.tar.gz",
                "vzdump-qemu-100-2030_01_01-10_00_00.vma.zst",
                "custom-101.vma")) {
            vsm.run("extractconfig", "bk:backup/" + missing)
                    .badInput("volume 'bk:backup/" + missing + "' does not exist");
        }
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }
}
