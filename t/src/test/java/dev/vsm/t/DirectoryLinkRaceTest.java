package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.NameRace;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever may write into a storage directory swaps a directory ABOVE a volume's name, the owner
 * directory {@code images/100}, for a symbolic link out of the storage, back and forth
 * ({@link NameRace#flipping}), while vsm allocates, frees and renames volumes there. vsm reaches
 * the volume's directory from the storage's root by descriptor, one component at a time, and
 * renames, links, creates and removes names relative to that directory: a link out of the storage
 * on the way is refused, never followed. The victim directory outside holds files under the very
 * names vsm uses; they are never renamed, removed or replaced, and no name is made there.
 */
@SlowTest
class DirectoryLinkRaceTest {
    /** Against the old code free removed the victim within 95 rounds, rename within 10, cleanup within 19. */
    private static final int ROUNDS = 150;

    private static final int RENAME_ROUNDS = 100;
    private static final String DISK = "vm-100-disk-0.raw";

    @TempDir
    Path root;

    private Vsm vsm;
    private Path local;
    private Path victim;
    private Object victimKey;
    private Map<String, String> victimBefore;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(Files.createDirectories(root.resolve("sandbox")));
        vsm.run("status").ok(); // makes the storage's directories
        local = vsm.defaultLocal();
        victim = Files.createDirectories(root.resolve("victim"));
        Path file = Files.write(victim.resolve(DISK), "VICTIM\n".getBytes(StandardCharsets.US_ASCII));
        victimKey = key(file);
        victimBefore = Tree.snapshot(victim);
    }

    @AfterEach
    void victimUnchanged() throws IOException {
        assertVictimUnchanged("at the end");
    }

    private void assertVictimUnchanged(String when) throws IOException {
        assertThat(Tree.snapshot(victim)).as("the victim directory %s", when).isEqualTo(victimBefore);
        if (victimKey != null) {
            assertThat(key(victim.resolve(DISK))).as("the victim file %s", when).isEqualTo(victimKey);
        }
    }

    private static Object key(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
    }

    /** {@code images/100} flips between a link to {@code images/.real-100} (inside) and one to the victim. */
    private NameRace flipOwnerDirectory() throws IOException {
        Path images = local.resolve("images");
        Files.createDirectories(images.resolve(".real-100"));
        return NameRace.flipping(images.resolve("100"), Path.of(".real-100"), victim);
    }

    @Test
    void allocAndFreeNeverReachAFileThroughAnOwnerDirectorySwappedForALinkOut() throws IOException {
        int freed = 0;
        try (NameRace race = flipOwnerDirectory()) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result alloc = vsm.run("alloc", "local", "100", DISK, "1M", "--format", "raw");
                assertThat(alloc.exit())
                        .as("alloc's exit status; stderr: %s", alloc.err())
                        .isIn(0, 1, 2);
                Vsm.Result free = vsm.run("free", "local:100/" + DISK);
                assertThat(free.exit())
                        .as("free's exit status; stderr: %s", free.err())
                        .isIn(0, 1, 2);
                if (free.exit() == 0) {
                    freed++;
                }
                assertVictimUnchanged("after round " + i);
            }
            assertThat(race.changes()).isPositive();
        }
        System.out.printf("free: %d of %d rounds freed%n", freed, ROUNDS);
        assertThat(freed).as("the race left vsm some rounds to succeed").isPositive();
    }

    @Test
    void renameNeverMovesAFileThroughAnOwnerDirectorySwappedForALinkOut() throws IOException {
        int renamed = 0;
        int allocated = 0;
        try (NameRace race = flipOwnerDirectory()) {
            for (int i = 0; i < RENAME_ROUNDS; i++) {
                if (vsm.run("alloc", "local", "100", DISK, "1M", "--format", "raw")
                                .exit()
                        == 0) {
                    allocated++;
                }
                Vsm.Result r = vsm.run("rename", "local:100/" + DISK, "100", "--name", "vm-100-disk-1.raw");
                assertThat(r.exit())
                        .as("rename's exit status; stderr: %s", r.err())
                        .isIn(0, 1, 2);
                if (r.exit() == 0) {
                    renamed++;
                    vsm.run("free", "local:100/vm-100-disk-1.raw");
                }
                assertVictimUnchanged("after round " + i);
            }
            assertThat(race.changes()).isPositive();
        }
        System.out.printf("rename: %d of %d rounds allocated, %d renamed%n", allocated, RENAME_ROUNDS, renamed);
        // a rename succeeds only when all its steps meet the inside link (1 to 19 of 100 rounds in runs so far)
        assertThat(allocated + renamed)
                .as("the race left vsm some rounds to succeed")
                .isPositive();
    }

    /**
     * {@code vsm cleanup} lists an abandoned tombstone in the real {@code images/100} and removes it
     * while the directory is swapped for a link to the victim, which holds a file of that name.
     */
    @Test
    void cleanupNeverRemovesAFileThroughAnOwnerDirectorySwappedForALinkOut() throws IOException {
        String node = Files.readString(Path.of("/proc/sys/kernel/hostname"))
                .strip()
                .split("\\.", 2)[0]
                .replaceAll("[^A-Za-z0-9_.]", "_");
        String tombstone =
                "." + DISK + ".vsm-del-" + node + "-" + ProcessHandle.current().pid() + ".1-0123456789abcdef";
        Files.delete(victim.resolve(DISK));
        Path victimTombstone = Files.writeString(victim.resolve(tombstone), "VICTIM\n");
        victimKey = null;
        victimBefore = Tree.snapshot(victim);
        Object victimTombstoneKey = key(victimTombstone);
        Path owner = Files.createDirectories(local.resolve("images/100"));
        Files.writeString(owner.resolve(tombstone), "freed");
        int cleaned = 0;
        try (NameRace race = NameRace.replacingDirectory(owner, victim, aside -> {
            try {
                if (!Files.exists(aside.resolve(tombstone))) {
                    Files.writeString(aside.resolve(tombstone), "freed");
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        })) {
            for (int i = 0; i < ROUNDS; i++) {
                Vsm.Result r = vsm.run("cleanup", "local");
                assertThat(r.exit())
                        .as("cleanup's exit status; stderr: %s", r.err())
                        .isIn(0, 1, 2);
                if (r.exit() == 0 && r.out().contains(tombstone)) {
                    cleaned++;
                }
                assertThat(Tree.snapshot(victim))
                        .as("the victim directory after round %d", i)
                        .isEqualTo(victimBefore);
                assertThat(key(victimTombstone))
                        .as("the victim file after round %d", i)
                        .isEqualTo(victimTombstoneKey);
            }
            assertThat(race.changes()).isPositive();
        }
        System.out.printf("cleanup: %d of %d rounds cleaned%n", cleaned, ROUNDS);
        assertThat(cleaned).as("the race left vsm some rounds to succeed").isPositive();
    }
}
