package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.OvaImportTest.Tar;
import dev.vsm.t.support.NameRace;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever may write into a storage directory (an upload {@code import/} or {@code template/iso/}
 * directory, a shared backup directory) swaps a name for a symbolic link between vsm's check and
 * its use: vsm reaches every file inside a storage by descriptor, so the link is never followed.
 * Each race runs hundreds of rounds against a thread that keeps swapping ({@link NameRace}) and is
 * never won: no file outside the storage is read, written or chmodded (the canaries there keep
 * their content and mode). The deterministic cases plant the link before the command.
 */
class StorageWriterTest {
    private static final int ROUNDS = 200;
    /** Against the old code the secret became a qcow2 image of 1.7 MB in round 0. */
    private static final int CHAIN_ROUNDS = 100;

    @TempDir
    Path root;

    private Vsm vsm;
    private Path local;
    private Path outside;
    private Path secret;
    private Map<String, String> outsideBefore;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(Files.createDirectories(root.resolve("sandbox")));
        vsm.run("status").ok(); // makes the storage's directories
        local = vsm.defaultLocal();
        outside = Files.createDirectories(root.resolve("outside"));
        byte[] secretBytes = new byte[256 * 1024];
        byte[] line = "SECRET-LINE\n".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i + line.length <= secretBytes.length; i += line.length) {
            System.arraycopy(line, 0, secretBytes, i, line.length);
        }
        secret = Files.write(outside.resolve("secret"), secretBytes);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        outsideBefore = Tree.snapshot(outside);
    }

    @AfterEach
    void nothingOutsideChanged() throws IOException {
        assertThat(Tree.snapshot(outside)).as("files outside the storage").isEqualTo(outsideBefore);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                .isEqualTo("rw-------");
        assertThat(Files.readString(secret)).startsWith("SECRET-LINE\n");
    }

    private static boolean holdsSecret(byte[] data) {
        byte[] marker = "SECRET-LINE".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i + marker.length <= data.length; i++) {
            if (Arrays.equals(data, i, i + marker.length, marker, 0, marker.length)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void anOvaSwappedForALinkAfterItsCheckNeverHasTheLinksTargetCopiedOut() throws Exception {
        byte[] disk = new byte[64 * 1024];
        Arrays.fill(disk, (byte) 'd');
        Path ova = local.resolve("import/appliance.ova");
        new Tar()
                .file("disk.raw", disk)
                .file("appliance.ovf", "<Envelope/>".getBytes(StandardCharsets.UTF_8))
                .writeTo(ova);
        int imported = 0;
        try (NameRace race = NameRace.swapping(ova, secret)) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run(
                        "import", "local", "100", "local:import/appliance.ova/disk.raw", "--format", "raw", "-q");
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 2);
                if (r.exit() == 0) {
                    imported++;
                    Path image = local.resolve("images/100/vm-100-disk-0.raw");
                    assertThat(holdsSecret(Files.readAllBytes(image)))
                            .as("round %d: the link's target was copied out", i)
                            .isFalse();
                    vsm.run("free", "local:100/vm-100-disk-0.raw").ok();
                }
            }
            assertThat(race.changes()).isPositive();
        }
        assertThat(imported).as("the race left vsm some rounds to succeed").isPositive();
        try (var entries = Files.list(local.resolve("import"))) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .as("no extracted copy left")
                    .noneMatch(n -> n.contains(".vsm-tmp-"));
        }
    }

    private Path stream(byte[] data) throws IOException {
        ByteBuffer header =
                ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(data.length);
        Path file = root.resolve("stream");
        Files.write(file, header.array());
        Files.write(file, data, java.nio.file.StandardOpenOption.APPEND);
        return file;
    }

    @Test
    void aStreamTemporaryHijackedIntoALinkNeverWritesTheLinksTarget() throws Exception {
        byte[] data = new byte[128 * 1024];
        Arrays.fill(data, (byte) 'i');
        Path input = stream(data);
        Path iso = local.resolve("template/iso/x.iso");
        try (NameRace race = NameRace.hijacking(iso.getParent(), n -> n.startsWith(".x.iso.vsm-tmp-"), secret)) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run("import-stream", "local:iso/x.iso", "raw+size", input.toString(), "-q");
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 1, 2);
                if (r.exit() == 0) {
                    assertThat(Files.isSymbolicLink(iso) || Arrays.equals(Files.readAllBytes(iso), data))
                            .isTrue();
                }
                Files.deleteIfExists(iso);
            }
            assertThat(race.changes()).as("the race hijacked temporaries").isPositive();
        }
    }

    @Test
    void qemuImgsTemporaryInAllocAndImportStreamIsTheFileCreatedNotALinkSwappedIn() throws Exception {
        Path images = Files.createDirectories(local.resolve("images/100"));
        byte[] data = new byte[64 * 1024];
        Arrays.fill(data, (byte) 'v');
        Path input = stream(data);
        try (NameRace race = NameRace.hijacking(images, n -> n.contains(".vsm-tmp-"), secret)) {
            for (int i = 0; i < ROUNDS / 2; i++) {
                Vsm.Result alloc = vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "64K");
                assertThat(alloc.exit())
                        .as("exit status; stderr: %s", alloc.err())
                        .isIn(0, 1, 2);
                Vsm.Result imported =
                        vsm.run("import-stream", "local:100/vm-100-disk-1.raw", "raw+size", input.toString(), "-q");
                assertThat(imported.exit())
                        .as("exit status; stderr: %s", imported.err())
                        .isIn(0, 1, 2);
                Files.createDirectories(images);
                try (var entries = Files.list(images)) {
                    for (Path p : entries.toList()) {
                        if (p.getFileName().toString().startsWith("vm-")) {
                            Files.delete(p);
                        }
                    }
                }
            }
            assertThat(race.changes()).as("the race hijacked temporaries").isPositive();
        }
    }

    @Test
    void qemuImgsTemporaryInCloneIsTheFileCreatedNotALinkSwappedIn() throws Exception {
        vsm.run("alloc", "local", "100", "vm-100-disk-0.qcow2", "1M").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok();
        Path images = Files.createDirectories(local.resolve("images/101"));
        int cloned = 0;
        String failed = null;
        try {
            try (NameRace race = NameRace.hijacking(images, n -> n.contains(".vsm-tmp-"), secret)) {
                for (int i = 0; i < ROUNDS; i++) {
                    Vsm.Result r = vsm.run("clone", "local:100/base-100-disk-0.qcow2", "101");
                    assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 1, 2);
                    if (r.exit() != 0 && failed == null) {
                        failed = r.err();
                    }
                    Files.createDirectories(images);
                    try (var entries = Files.list(images)) {
                        for (Path p : entries.toList()) {
                            if (p.getFileName().toString().startsWith("vm-")) {
                                if (r.exit() == 0) {
                                    assertThat(p)
                                            .as("round %d: the clone vsm reported", i)
                                            .isRegularFile();
                                    assertThat(Files.isSymbolicLink(p))
                                            .as("round %d: %s", i, p)
                                            .isFalse();
                                    cloned++;
                                }
                                Files.delete(p);
                            }
                        }
                    }
                }
                assertThat(race.changes()).as("the race hijacked temporaries").isPositive();
            }
            // without a race, clone works: a regular qcow2 file under the name, backed by the base
            vsm.run("clone", "local:100/base-100-disk-0.qcow2", "101").ok();
            Path clone = images.resolve("vm-101-disk-0.qcow2");
            assertThat(Files.isSymbolicLink(clone)).isFalse();
            assertThat(clone).isRegularFile();
            assertThat(new String(Files.readAllBytes(clone), StandardCharsets.ISO_8859_1))
                    .contains("../100/base-100-disk-0.qcow2");
            vsm.run("free", "local:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2")
                    .ok();
        } finally {
            vsm.run(
                    "free",
                    "local:100/base-100-disk-0.qcow2"); // chattr -i, which the temporary directory's removal needs
        }
        // the hijacker usually wins every round (qemu-img's run is a wide window): a round it won fails, safely
        System.out.printf("clone race: %d of %d rounds succeeded; a failed one said: %s%n", cloned, ROUNDS, failed);
    }

    /**
     * create-base gives the volume its base name, then makes it read-only (0440) and immutable: a
     * writer of the owner's directory replaces the new base name with a link to a file outside the
     * moment it appears. Before, the chmod went by name and followed the link (the secret became
     * 0440); chattr opens with {@code O_NOFOLLOW} but went by the whole path. Now both reach the
     * file vsm opened in the directory it holds: a round the hijacker wins fails, and the file
     * outside keeps its mode and flags.
     */
    @Test
    void aBaseHijackedIntoALinkDuringCreateBaseNeverHasTheLinksTargetChmoddedOrMadeImmutable() throws Exception {
        Path images = Files.createDirectories(local.resolve("images/100"));
        Path base = images.resolve("base-100-disk-0.raw");
        int made = 0;
        int refused = 0;
        long hijacks = 0;
        String failed = null;
        try {
            for (int i = 0; i < ROUNDS; i++) {
                vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "64K").ok();
                Vsm.Result r;
                try (NameRace race = NameRace.hijacking(images, n -> n.startsWith("base-"), secret)) {
                    r = vsm.run("create-base", "local:100/vm-100-disk-0.raw");
                    hijacks += race.changes();
                }
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 1, 2);
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                        .as("round %d: the secret's mode", i)
                        .isEqualTo("rw-------");
                assertThat(attributes(secret))
                        .as("round %d: the secret's flags", i)
                        .doesNotContain("i");
                if (r.exit() == 0) {
                    made++;
                } else {
                    refused++;
                    failed = failed == null ? r.err().strip() : failed;
                }
                Files.deleteIfExists(images.resolve("vm-100-disk-0.raw")); // a round that failed before the rename
                if (Files.isSymbolicLink(base)) {
                    Files.delete(base);
                } else if (Files.exists(base)) {
                    vsm.run("free", "local:100/base-100-disk-0.raw").ok();
                }
            }
        } finally {
            vsm.releaseImmutable();
        }
        System.out.printf(
                "create-base race: %d of %d rounds made a base, %d refused (%s), %d hijacks%n",
                made, ROUNDS, refused, failed, hijacks);
        assertThat(refused)
                .as("rounds the hijacker won (each must fail safely)")
                .isPositive();
    }

    /**
     * create-base runs {@code chattr +i} on the new base's name in the directory it holds; vsm stops
     * itself just before (the test pause point {@code chattr}) and a writer of the directory swaps
     * the name for a regular file of theirs. chattr then makes that file immutable; vsm finds the
     * name no longer holds the base it made read-only, undoes exactly that (an immutable file
     * cannot be moved) and fails. Before, the writer's file stayed immutable and create-base
     * reported success.
     */
    @RootTest
    @Test
    void aBaseSwappedBeforeItsChattrLeavesTheWritersFileMutableAndFails() throws Exception {
        Path images = Files.createDirectories(local.resolve("images/100"));
        Path base = images.resolve("base-100-disk-0.raw");
        vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "64K").ok();
        Vsm stalled = new Vsm(vsm.sandbox()).process().env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=chattr");
        Vsm.Started s = stalled.start("create-base", "local:100/vm-100-disk-0.raw");
        try {
            awaitStopped(s);
            Files.move(base, images.resolve("kept-aside"));
            Files.writeString(images.resolve(".writer"), "the writer's own file");
            Files.move(images.resolve(".writer"), base, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            signal("-CONT", s.process().pid());
            Vsm.Result r = s.finish(60);
            assertThat(r.exit()).as("vsm reports what it found: %s", r).isEqualTo(1);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .endsWith("unable to make '" + base + "' a base - the name no longer holds the file this command "
                            + "made read-only (replaced meanwhile by another process?): left what is there as it was");
            assertThat(attributes(base)).as("the writer's file's flags").doesNotContain("i");
            assertThat(Files.readString(base)).isEqualTo("the writer's own file");
        } finally {
            signal("-CONT", s.process().pid());
            s.process().destroyForcibly();
            vsm.releaseImmutable();
        }
    }

    /**
     * free of a base runs {@code chattr -i} before it removes the file it found; vsm stops itself
     * just before, and meanwhile the base is freed and a new base made under its name (as another
     * node would once this one's cluster lock expired). vsm finds the name no longer holds the file
     * it found after its chattr, makes that file immutable again and fails: the new base stays,
     * immutable. Before, its chattr -i left the new base mutable (and only the removal that
     * followed refused).
     */
    @RootTest
    @Test
    void aBaseMadeAgainBeforeFreesChattrKeepsItsImmutableFlag() throws Exception {
        Path images = Files.createDirectories(local.resolve("images/100"));
        Path base = images.resolve("base-100-disk-0.raw");
        vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "64K").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.raw").ok();
        Vsm stalled = new Vsm(vsm.sandbox()).process().env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=chattr");
        Vsm.Started s = stalled.start("free", "local:100/base-100-disk-0.raw");
        try {
            awaitStopped(s);
            // what another node's free and create-base do (this one holds the local storage lock)
            HostTools.mustRun(Map.of(), "chattr", "-i", base.toString());
            Files.delete(base);
            Files.writeString(base, "another base");
            HostTools.mustRun(Map.of(), "chattr", "+i", base.toString());
            Object made = Files.readAttributes(base, java.nio.file.attribute.BasicFileAttributes.class)
                    .fileKey();
            signal("-CONT", s.process().pid());
            Vsm.Result r = s.finish(60);
            assertThat(r.exit()).as("%s", r).isEqualTo(1);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .endsWith("'" + base + "' is no longer the file this command found (replaced meanwhile by "
                            + "another node or process?): left it alone");
            assertThat(attributes(base)).as("the new base's flags").contains("i");
            assertThat(Files.readAttributes(base, java.nio.file.attribute.BasicFileAttributes.class)
                            .fileKey())
                    .isEqualTo(made);
        } finally {
            signal("-CONT", s.process().pid());
            s.process().destroyForcibly();
            vsm.releaseImmutable();
        }
    }

    /**
     * A removal renames the volume to a private tombstone before it checks and removes it; a kill
     * in between leaves {@code .<name>.vsm-del-<node>-<pid>.<start>-<random>}. {@code vsm cleanup}
     * removes such a regular file or directory (a subvol's, its tree by descriptor) of this node once
     * its process is gone, and nothing else that looks like one: a live process's, another node's, a
     * link (a writer's, to a file outside), or a name without a node (what removals wrote before).
     */
    @Test
    void cleanupRemovesOnlyVsmsOwnAbandonedTombstones() throws Exception {
        Path images = Files.createDirectories(local.resolve("images/100"));
        String node = Files.readString(Path.of("/proc/sys/kernel/hostname"))
                .strip()
                .split("\\.", 2)[0]
                .replaceAll("[^A-Za-z0-9_.]", "_");
        ProcessHandle self = ProcessHandle.current();
        String dead = self.pid() + ".1"; // this pid, another start time: a process that is gone
        String live =
                self.pid() + "." + self.info().startInstant().orElseThrow().toEpochMilli();
        String random = "-0123456789abcdef";
        Path abandoned =
                Files.writeString(images.resolve(".vm-100-disk-0.raw.vsm-del-" + node + "-" + dead + random), "freed");
        Path subvol = Files.createDirectory(
                images.resolve(".subvol-100-disk-4.subvol.vsm-del-" + node + "-" + dead + random));
        Files.createSymbolicLink(subvol.resolve("up"), outside); // removed, never followed
        List<Path> kept = List.of(
                Files.writeString(images.resolve(".vm-100-disk-1.raw.vsm-del-" + node + "-" + live + random), "x"),
                Files.writeString(images.resolve(".vm-100-disk-2.raw.vsm-del-elsewhere-" + dead + random), "x"),
                Files.createSymbolicLink(
                        images.resolve(".vm-100-disk-3.raw.vsm-del-" + node + "-" + dead + random), secret),
                Files.writeString(images.resolve(".vm-100-disk-5.raw.vsm-del-" + dead + random), "x"));
        assertThat(vsm.run("cleanup", "local").ok().out())
                .contains("images/100/" + abandoned.getFileName())
                .contains("images/100/" + subvol.getFileName());
        assertThat(abandoned).doesNotExist();
        assertThat(subvol).doesNotExist();
        for (Path p : kept) {
            assertThat(Files.exists(p, LinkOption.NOFOLLOW_LINKS)).as("%s", p).isTrue();
        }
        assertThat(vsm.run("cleanup", "local").ok().out()).startsWith("nothing to clean up");
    }

    /**
     * A link out of the storage already standing where a directory vsm would make is: making it
     * is refused at once (exit 2, one line naming the link), not reported as made for the next step
     * to refuse. Before, activation took {@code template/iso -> /elsewhere} as made and
     * {@code alloc} went on (exit 0), and {@code images/100 -> /elsewhere} failed only at the
     * image's creation.
     */
    @Test
    void aLinkOutWhereADirectoryIsToBeMadeIsRefusedAtOnce() throws IOException {
        Path iso = local.resolve("template/iso");
        Files.delete(iso);
        Files.createSymbolicLink(iso, outside);
        vsm.run("alloc", "local", "100", "", "1M").badInput("'" + iso + "' is a symbolic link to '" + outside + "'");
        Files.delete(iso);
        Files.createDirectory(iso);

        Files.createSymbolicLink(local.resolve("images/100"), outside);
        vsm.run("alloc", "local", "100", "", "1M")
                .badInput("'" + local.resolve("images/100") + "' is a symbolic link to '" + outside + "'");
        vsm.run("alloc", "local", "100", "", "1M", "--dry-run").badInput("is a symbolic link to");
    }

    /**
     * A volume chain's {@code snapshot} makes the new top layer under a temporary name with
     * {@code qemu-img create}, which truncates what it opens; the temporary is hijacked into a link
     * to the secret as soon as it appears. qemu-img is given the file vsm created, by descriptor, so
     * the secret is never truncated or written (before, qemu-img followed the link).
     */
    @Test
    @SlowTest
    void aChainLayersTemporaryHijackedIntoALinkNeverHasTheLinksTargetWritten() throws IOException {
        vsm.writeConfig("storages:\n  local:\n    type: dir\n    path: " + local
                + "\n    content: [images]\n    snapshot-as-volume-chain: 1\n");
        vsm.run("alloc", "local", "100", "vm-100-disk-0.qcow2", "1M", "--format", "qcow2")
                .ok();
        int made = 0;
        int failed = 0;
        try (NameRace race = NameRace.hijacking(local.resolve("images/100"), n -> n.contains(".vsm-tmp-"), secret)) {
            for (int i = 0; i < CHAIN_ROUNDS; i++) {
                Vsm.Result r = vsm.run("snapshot", "local:100/vm-100-disk-0.qcow2", "s" + i);
                assertThat(r.exit())
                        .as("snapshot's exit status; stderr: %s", r.err())
                        .isIn(0, 1, 2);
                if (r.exit() == 0) {
                    made++;
                } else {
                    failed++;
                }
                assertThat(Files.readAllBytes(secret))
                        .as("the secret after round %d", i)
                        .startsWith("SECRET-LINE\n".getBytes(StandardCharsets.US_ASCII));
            }
            assertThat(race.changes()).isPositive();
        }
        System.out.printf("chain layer: %d of %d rounds made, %d failed%n", made, CHAIN_ROUNDS, failed);
        assertThat(failed).as("rounds the hijacker won (each must fail safely)").isPositive();
    }

    /** The flags {@code lsattr -d} shows for a file ({@code i}: immutable). */
    private static String attributes(Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("lsattr", "-d", file.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("lsattr: %s", out).isZero();
        return out.split(" ", 2)[0];
    }

    private Path backup(String notes) throws IOException {
        Path dump = local.resolve("dump");
        Path archive = Files.writeString(dump.resolve("vzdump-qemu-100-2020_01_09-10_00_00.vma.zst"), "archive");
        if (notes != null) {
            Files.writeString(Path.of(archive + ".notes"), notes);
        }
        return archive;
    }

    @Test
    void notesTemporaryHijackedIntoALinkNeverHasTheLinksTargetChmodded() throws Exception {
        Path archive = backup(null);
        Path notes = Path.of(archive + ".notes");
        String volid = "local:backup/" + archive.getFileName();
        try (NameRace race = NameRace.hijacking(
                archive.getParent(), n -> n.startsWith("." + archive.getFileName() + ".notes.tmp-"), secret)) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run("update-attributes", volid, "--notes", "round " + i);
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 1, 2);
                if (Files.isSymbolicLink(notes)) {
                    Files.delete(notes); // a link renamed into place is refused from then on: the admin removes it
                }
            }
            assertThat(race.changes()).as("the race hijacked temporaries").isPositive();
        }
    }

    /**
     * The window between the creation of the notes' temporary file and its chmod, widened: vsm stops
     * itself there (the test pause point {@code replace}), the temporary name is swapped for a link
     * to a file outside, and vsm goes on. A chmod by name would make that file 0644 (the race above
     * rarely meets this window of microseconds); by descriptor it changes only the file created, and
     * the rename that follows, which Linux does by name, is found out and reported.
     */
    @Test
    void notesTemporarySwappedWhileVsmStandsBeforeItsChmodNeverHasTheLinksTargetChmodded() throws Exception {
        Path archive = backup(null);
        Path dump = archive.getParent();
        String prefix = "." + archive.getFileName() + ".notes.tmp-";
        Vsm stalled = new Vsm(vsm.sandbox()).process().env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=replace");
        Vsm.Started s = stalled.start("update-attributes", "local:backup/" + archive.getFileName(), "--notes", "n");
        try {
            awaitStopped(s);
            Path temp;
            try (var entries = Files.list(dump)) {
                temp = entries.filter(p -> p.getFileName().toString().startsWith(prefix))
                        .findFirst()
                        .orElseThrow();
            }
            Path link = dump.resolve(".swap");
            Files.createSymbolicLink(link, secret);
            Files.move(link, temp, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            signal("-CONT", s.process().pid());
            Vsm.Result r = s.finish(60);
            assertThat(r.exit()).as("vsm reports what it found: %s", r).isEqualTo(1);
            assertThat(r.err()).contains("its temporary file was replaced");
        } finally {
            signal("-CONT", s.process().pid());
            s.process().destroyForcibly();
        }
    }

    private static void awaitStopped(Vsm.Started s) throws Exception {
        Path stat = Path.of("/proc", Long.toString(s.process().pid()), "stat");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            if (!s.process().isAlive()) {
                throw new AssertionError("vsm ended before its pause point: " + s.finish());
            }
            String line = Files.readString(stat);
            if (line.substring(line.lastIndexOf(')') + 2).startsWith("T")) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("vsm reached its pause point within 60 s")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** kill(1) with a signal, for a process this test started. */
    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", signal, Long.toString(pid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void notesSwappedForALinkAfterTheCheckAreNeverShownFromTheLinksTarget() throws Exception {
        Path archive = backup("my notes\n");
        try (NameRace race = NameRace.swapping(Path.of(archive + ".notes"), secret)) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run("list", "local", "--content", "backup", "--output-format", "json");
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isZero();
                assertThat(r.out()).doesNotContain("SECRET");
            }
            assertThat(race.changes()).isPositive();
        }
    }

    @Test
    void anArchiveSwappedForALinkAfterItsCheckNeverHasAnotherGuestsConfigurationPrinted() throws Exception {
        Path other = outside.resolve("vzdump-qemu-200-2020_01_09-10_00_00.tar");
        new Tar()
                .file("qemu-server.conf", "name: SECRET-LINE\n".getBytes(StandardCharsets.UTF_8))
                .writeTo(other);
        Path archive = local.resolve("dump/vzdump-qemu-100-2020_01_09-10_00_00.tar");
        new Tar()
                .file("qemu-server.conf", "name: mine\n".getBytes(StandardCharsets.UTF_8))
                .writeTo(archive);
        outsideBefore = Tree.snapshot(outside);
        int shown = 0;
        try (NameRace race = NameRace.swapping(archive, other)) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run("extractconfig", "local:backup/" + archive.getFileName());
                assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isIn(0, 2);
                assertThat(r.out()).doesNotContain("SECRET");
                if (r.exit() == 0) {
                    assertThat(r.out()).startsWith("name: mine\n");
                    shown++;
                }
            }
            assertThat(race.changes()).isPositive();
        }
        assertThat(shown).as("the race left vsm some rounds to succeed").isPositive();
    }

    @Test
    void aSparseNotesFileOfGigabytesIsReadBounded() throws IOException {
        Path archive = backup(null);
        try (RandomAccessFile notes = new RandomAccessFile(archive + ".notes", "rw")) {
            notes.write("first line\n".getBytes(StandardCharsets.UTF_8));
            notes.setLength(3L << 30);
        }
        assertThat(vsm.run("list", "local", "--content", "backup", "--output-format", "json")
                        .ok()
                        .out())
                .contains("first line");
        vsm.run("prune-backups", "local", "--keep-all", "1").ok();
    }

    @Test
    void aDumpDirectoryLinkedOutOfTheStorageIsRefusedByUpdateAttributes() throws IOException {
        Path dump = local.resolve("dump");
        Files.delete(dump);
        Files.createSymbolicLink(dump, outside);
        Files.writeString(outside.resolve("vzdump-qemu-100-2020_01_09-10_00_00.vma.zst"), "archive");
        outsideBefore = Tree.snapshot(outside);
        String volid = "local:backup/vzdump-qemu-100-2020_01_09-10_00_00.vma.zst";
        vsm.run("update-attributes", volid, "--notes", "x").badInput("symbolic link");
        vsm.run("update-attributes", volid, "--protected", "1").badInput("symbolic link");
    }

    @Test
    void anImageDirectoryLinkedOutOfTheStorageIsRefusedBySnapshotRollbackAndSnapshotDelete() throws IOException {
        vsm.run("alloc", "local", "100", "vm-100-disk-0.qcow2", "1M").ok();
        vsm.run("snapshot", "local:100/vm-100-disk-0.qcow2", "s1").ok();
        Path owner = local.resolve("images/100");
        Path other = outside.resolve("100");
        Files.move(owner, other);
        Files.createSymbolicLink(owner, other);
        outsideBefore = Tree.snapshot(outside);
        String volid = "local:100/vm-100-disk-0.qcow2";
        vsm.run("snapshot", volid, "s2").badInput("symbolic link");
        vsm.run("rollback", volid, "s1").badInput("symbolic link");
        vsm.run("snapshot-delete", volid, "s1").badInput("symbolic link");
        vsm.run("path", volid).badInput("symbolic link");
    }
}
