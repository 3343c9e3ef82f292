package dev.vsm.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLocksTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream progressBytes = new ByteArrayOutputStream();
    private final PrintStream progress = new PrintStream(progressBytes, true, StandardCharsets.UTF_8);
    private final List<Process> children = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopChildren() throws Exception {
        for (Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private FileLocks locks() {
        return new FileLocks(dir, progress);
    }

    private String progress() {
        return progressBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void runsTheWorkAndReturnsItsResultWithTheLockFileInTheDirectory() {
        FileLocks locks = locks();
        String result = locks.withLock("storage-local", Duration.ofSeconds(1), () -> {
            assertThat(locks.isHeldByCurrentThread("storage-local")).isTrue();
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(dir.resolve("storage-local.lock")).exists();
        assertThat(locks.isHeldByCurrentThread("storage-local")).isFalse();
        assertThat(progress()).isEmpty();
    }

    @Test
    void isReentrantWithinOneThread() {
        FileLocks locks = locks();
        int depth = locks.withLock(
                "storage-config",
                Duration.ofMillis(100),
                () -> locks.withLock(
                        "storage-config",
                        Duration.ofMillis(100),
                        () -> new FileLocks(dir, progress)
                                .withLock("storage-config", Duration.ofMillis(100), () -> 3)));
        assertThat(depth).isEqualTo(3);
        assertThat(progress()).isEmpty();
    }

    @Test
    void differentNamesDoNotExcludeEachOther() throws Exception {
        FileLocks locks = locks();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> locks.runWithLock("storage-a", Duration.ofSeconds(1), () -> {
            held.countDown();
            await(release);
        }));
        held.await();
        assertThat(locks.withLock("storage-b", Duration.ZERO, () -> "free")).isEqualTo("free");
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
    }

    @Test
    void releasesTheLockWhenTheWorkThrows() {
        FileLocks locks = locks();
        assertThatThrownBy(() -> locks.runWithLock("storage-x", Duration.ofSeconds(1), () -> {
                    throw new IllegalStateException("boom");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        assertThat(locks.isHeldByCurrentThread("storage-x")).isFalse();
        assertThat(locks.withLock("storage-x", Duration.ZERO, () -> 1)).isEqualTo(1);
    }

    @Test
    void threadsExcludeEachOther() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int[] counter = {0};
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            // a FileLocks per thread, as separate engine objects would have
            FileLocks locks = new FileLocks(dir, progress);
            futures.add(pool.submit(() -> {
                for (int i = 0; i < 25; i++) {
                    locks.runWithLock("storage-config", Duration.ofSeconds(30), () -> {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    });
                }
            }));
        }
        for (Future<?> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(counter[0]).isEqualTo(200);
    }

    @Test
    void aThreadWaitingTooLongGetsPvesTimeoutMessage() throws Exception {
        FileLocks locks = locks();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> locks.runWithLock("storage-local", Duration.ofSeconds(1), () -> {
            held.countDown();
            await(release);
        }));
        held.await();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.withLock("storage-local", Duration.ofMillis(300), () -> "never"))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("can't lock file '" + dir.resolve("storage-local.lock") + "' - got timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
        assertThat(progress()).isEqualTo("trying to acquire lock... failed" + System.lineSeparator());
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aWaitingThreadGetsTheLockWhenItIsReleased() throws Exception {
        FileLocks locks = locks();
        CountDownLatch held = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> locks.runWithLock("storage-local", Duration.ofSeconds(1), () -> {
            held.countDown();
            sleep(300);
        }));
        held.await();
        assertThat(locks.withLock("storage-local", Duration.ofSeconds(10), () -> "mine"))
                .isEqualTo("mine");
        assertThat(progress()).isEqualTo("trying to acquire lock... OK" + System.lineSeparator());
        holder.get(10, TimeUnit.SECONDS);
    }

    @Test
    void anotherProcessHoldingTheLockMakesUsWaitAndTimeOut() throws Exception {
        Process child = startChild("hold", dir.toString(), "storage-config");
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("locked");

        FileLocks locks = locks();
        assertThatThrownBy(() -> locks.withLock("storage-config", Duration.ofMillis(400), () -> "never"))
                .hasMessage("can't lock file '" + dir.resolve("storage-config.lock") + "' - got timeout");

        // release: the child holds until its stdin closes
        child.getOutputStream().close();
        assertThat(locks.withLock("storage-config", Duration.ofSeconds(20), () -> "mine"))
                .isEqualTo("mine");
        assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isZero();
    }

    /**
     * Another process takes the lock again and again: it holds it for 500 ms, and leaves it free
     * only for the moment it takes to open the lock file again. A waiter that polled would see it
     * free only if it looked in that moment, and timed out (as this test did before waiters
     * waited in the kernel); one the kernel wakes at each release gets it.
     */
    @Test
    void aProcessThatTakesTheLockAgainAndAgainDoesNotStarveAWaiter() throws Exception {
        Process child = startChild("churn", dir.toString(), "storage-config", "500", "0");
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("locked");
        FileLocks locks = locks();
        for (int i = 0; i < 3; i++) {
            assertThat(locks.withLock("storage-config", Duration.ofSeconds(10), () -> "mine"))
                    .isEqualTo("mine");
        }
        assertThat(child.isAlive()).as("the other process still takes the lock").isTrue();
        child.getOutputStream().close();
        assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void weHoldingTheLockMakesAnotherProcessTimeOut() throws Exception {
        String output = locks().withLock("storage-local", Duration.ofSeconds(1), () -> {
            try {
                Process child = startChild("try", dir.toString(), "storage-local", "300");
                String text = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
                assertThat(child.exitValue()).isEqualTo(1);
                return text;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(output)
                .contains("trying to acquire lock... failed")
                .contains("can't lock file '" + dir.resolve("storage-local.lock") + "' - got timeout");

        Process again = startChild("try", dir.toString(), "storage-local", "5000");
        assertThat(new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("acquired\n");
        assertThat(again.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(again.exitValue()).isZero();
    }

    @Test
    void tryRunWithLockRunsWhenFreeAndIsReentrant() {
        FileLocks locks = locks();
        AtomicInteger runs = new AtomicInteger();
        assertThat(locks.tryRunWithLock("storage-x.del-vm-1-disk-0", () -> {
                    runs.incrementAndGet();
                    assertThat(locks.tryRunWithLock("storage-x.del-vm-1-disk-0", runs::incrementAndGet))
                            .isTrue();
                }))
                .isTrue();
        assertThat(runs).hasValue(2);
        assertThat(progress()).isEmpty();
    }

    @Test
    void tryRunWithLockGivesUpAtOnceWhenAnotherThreadHoldsIt() throws Exception {
        FileLocks locks = locks();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> locks.runWithLock("wipe", Duration.ofSeconds(5), () -> {
            held.countDown();
            await(release);
        }));
        await(held);
        AtomicInteger runs = new AtomicInteger();
        assertThat(locks.tryRunWithLock("wipe", runs::incrementAndGet)).isFalse();
        assertThat(runs).hasValue(0);
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(locks.tryRunWithLock("wipe", runs::incrementAndGet)).isTrue();
        assertThat(progress()).isEmpty();
    }

    @Test
    void tryRunWithLockGivesUpAtOnceWhenAnotherProcessHoldsIt() throws Exception {
        Process child = startChild("hold", dir.toString(), "wipe");
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("locked");
        AtomicInteger runs = new AtomicInteger();
        assertThat(locks().tryRunWithLock("wipe", runs::incrementAndGet)).isFalse();
        child.getOutputStream().close();
        assertThat(child.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(locks().tryRunWithLock("wipe", runs::incrementAndGet)).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void refusesNamesThatAreNotPlainFileNames() {
        FileLocks locks = locks();
        for (String bad : List.of("", "../etc/passwd", "a/b", ".hidden", "with space")) {
            assertThatThrownBy(() -> locks.withLock(bad, Duration.ZERO, () -> 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("bad lock name");
        }
        assertThat(Files.exists(dir.resolve("etc"))).isFalse();
    }

    @Test
    void doesNotFollowASymlinkPlantedAsLockFile() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), "keep");
        Files.createSymbolicLink(dir.resolve("storage-evil.lock"), victim);
        assertThatThrownBy(() -> locks().withLock("storage-evil", Duration.ZERO, () -> 1))
                .isInstanceOf(StorageException.class)
                .hasMessage("lock file '" + dir.resolve("storage-evil.lock")
                        + "' is a symbolic link (owned by uid 0 mode 0777), not a"
                        + " regular file of root's: remove it (rm " + dir.resolve("storage-evil.lock")
                        + ") and run vsm again");
        assertThat(victim).hasContent("keep");
    }

    @Test
    void aFifoPlantedAsLockFileIsRefusedAtOnceNotOpened() throws Exception {
        Path fifo = dir.resolve("storage-fifo.lock");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor())
                .isZero();
        // opening a FIFO for writing blocks until a reader comes: this would never return
        assertThatThrownBy(() -> locks().withLock("storage-fifo", Duration.ofSeconds(3600), () -> 1))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("lock file '" + fifo + "' is a fifo (owned by uid 0 mode 0");
    }

    @Test
    void aLockFileOfAnotherUserIsRefused() throws Exception {
        Path file = Files.writeString(dir.resolve("storage-theirs.lock"), "");
        Files.setAttribute(file, "unix:uid", 65534);
        assertThatThrownBy(() -> locks().withLock("storage-theirs", Duration.ofSeconds(3600), () -> 1))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("lock file '" + file
                        + "' is a regular file (owned by uid 65534 mode 0644), not a regular file of root's");
    }

    @Test
    void lockFilesAreMadeOwnerOnlyAndOldOnesAreTightened() throws Exception {
        locks().withLock("storage-new", Duration.ZERO, () -> 1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("storage-new.lock"))))
                .isEqualTo("rw-------");
        Path old = Files.writeString(dir.resolve("storage-old.lock"), "");
        Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r--r--"));
        locks().withLock("storage-old", Duration.ZERO, () -> 1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(old)))
                .isEqualTo("rw-------");
    }

    @Test
    void aDirectoryOthersMayWriteIsRefusedAtEveryLock() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> locks().withLock("storage-x", Duration.ZERO, () -> 1))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("lock directory '" + dir + "' is owned by uid 0 mode 0777, not root's alone");
        assertThat(dir.resolve("storage-x.lock")).doesNotExist();
    }

    @Test
    void aFileReadBackMustBeOwnAndPrivate() throws Exception {
        assertThat(FileLocks.readOwnFile(dir.resolve("cache.yaml"))).isEmpty();
        Path cache = Files.writeString(dir.resolve("cache.yaml"), "storages: {}\n");
        assertThat(FileLocks.readOwnFile(cache))
                .hasValueSatisfying(b -> assertThat(new String(b)).isEqualTo("storages: {}\n"));
        Files.setAttribute(cache, "unix:uid", 65534);
        assertThatThrownBy(() -> FileLocks.readOwnFile(cache))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("file '" + cache + "' is a regular file (owned by uid 65534");
        Files.setAttribute(cache, "unix:uid", 0);
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThatThrownBy(() -> FileLocks.readOwnFile(cache))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("file '" + cache + "' is owned by uid 0 mode 0666, writable by others");
    }

    private Process startChild(String... args) throws java.io.IOException {
        Process p = ChildJvm.start(LockHolderMain.class, List.of(FileLocks.class, StorageException.class), args);
        children.add(p);
        return p;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
