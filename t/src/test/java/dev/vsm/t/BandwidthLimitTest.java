package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storages' {@code bwlimit} applied to the transfers, by pve's rule: the operation's key
 * (a copy for the same guest is a {@code move}, for another one a {@code clone}; streams are a
 * {@code migration}; an import has none, so {@code default}), the smallest of the storages
 * involved, and an explicit {@code --bwlimit} that replaces them only for a caller who may change
 * the storages (who may write the configuration file), else may only lower them.
 */
class BandwidthLimitTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path image;

    @BeforeEach
    void setUp() throws Exception {
        vsm = new Vsm(sandbox);
        vsm.writeConfig("""
                storages:
                  slow:
                    type: dir
                    path: %1$s/slow
                    content: [images]
                    bwlimit: default=1024,move=2048,clone=512,migration=8192
                  fast:
                    type: dir
                    path: %1$s/fast
                    content: [images]
                    bwlimit: move=4096
                  free:
                    type: dir
                    path: %1$s/free
                    content: [images]
                """.formatted(sandbox));
        image = sandbox.resolve("disk.raw");
        Files.write(image, new byte[1 << 20]);
        vsm.run("alloc", "slow", "100", "", "1M").ok();
    }

    @AfterEach
    void release() {
        vsm.releaseImmutable();
    }

    /** The rate {@code qemu-img convert -r} is given in a dry run, in KiB/s; 0 when none. */
    private long convertRate(String... args) {
        List<String> lines = vsm.run(args).ok().lines();
        String convert = lines.stream()
                .filter(l -> l.startsWith("+ qemu-img convert "))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no convert in " + lines));
        String[] argv = convert.split(" ");
        for (int i = 0; i < argv.length - 1; i++) {
            if (argv[i].equals("-r")) {
                return Long.parseLong(argv[i + 1]) / 1024;
            }
        }
        return 0;
    }

    @Test
    void eachTransferRunsUnderTheSmallestLimitOfItsStoragesForItsOperation() {
        assertThat(convertRate("import", "slow", "100", image.toString(), "--dry-run"))
                .as("an import: the storage's default")
                .isEqualTo(1024);
        assertThat(convertRate("import", "fast", "100", image.toString(), "--dry-run"))
                .as("no default, no global limits: none")
                .isZero();
        assertThat(convertRate("copy", "slow:100/vm-100-disk-0.raw", "fast", "--dry-run"))
                .as("a move: the smaller of 2048 and 4096")
                .isEqualTo(2048);
        assertThat(convertRate("copy", "slow:100/vm-100-disk-0.raw", "free", "--vmid", "101", "--dry-run"))
                .as("for another guest: a clone")
                .isEqualTo(512);
        assertThat(convertRate("copy", "slow:100/vm-100-disk-0.raw", "free", "--vmid", "100", "--dry-run"))
                .isEqualTo(2048);

        assertThat(convertRate("import", "slow", "100", image.toString(), "--bwlimit", "100", "--dry-run"))
                .as("an override below: taken")
                .isEqualTo(100);
        assertThat(convertRate("import", "slow", "100", image.toString(), "--bwlimit", "99999", "--dry-run"))
                .as("root may write the configuration: its override stands alone")
                .isEqualTo(99999);
        assertThat(convertRate("copy", "slow:100/vm-100-disk-0.raw", "fast", "--bwlimit", "0", "--dry-run"))
                .as("0: no limit")
                .isZero();
        vsm.run("import", "slow", "100", image.toString(), "--bwlimit", "-5")
                .badInput("bwlimit: -5 KiB/s is not a bandwidth (0 is no limit)");
    }

    /** Who may not write the configuration may not lift its limits: an override may only lower them. */
    @Test
    @RootTest
    void aCallerWhoMayNotChangeTheStoragesMayOnlyLowerTheirLimits() throws Exception {
        HostTools.require("chattr +i keeps even root from writing the configuration", "/usr/bin/chattr");
        chattr("+i", vsm.config());
        try {
            assertThat(convertRate("import", "slow", "100", image.toString(), "--bwlimit", "99999", "--dry-run"))
                    .isEqualTo(1024);
            assertThat(convertRate("import", "slow", "100", image.toString(), "--bwlimit", "0", "--dry-run"))
                    .isEqualTo(1024);
            assertThat(convertRate("import", "slow", "100", image.toString(), "--bwlimit", "100", "--dry-run"))
                    .isEqualTo(100);
            assertThat(convertRate("import", "free", "100", image.toString(), "--bwlimit", "100", "--dry-run"))
                    .isEqualTo(100);
        } finally {
            chattr("-i", vsm.config());
        }
    }

    private static void chattr(String flag, Path file) throws Exception {
        Process p = new ProcessBuilder("chattr", flag, file.toString())
                .redirectErrorStream(true)
                .start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as(new String(p.getInputStream().readAllBytes()))
                .isZero();
    }

    /** 64 MiB exported from a storage with {@code migration=8192}: about 8 s, through cstream. */
    @Test
    @SlowTest
    void anExportRunsAtItsStoragesRate() throws Exception {
        HostTools.require("cstream enforces a stream's limit", "/usr/bin/cstream");
        vsm.run("alloc", "slow", "100", "", "64M").ok();
        Path volume = sandbox.resolve("slow/images/100/vm-100-disk-1.raw");
        byte[] block = new byte[1 << 20];
        new java.util.Random(36).nextBytes(block);
        try (var out = Files.newOutputStream(volume)) {
            for (int i = 0; i < 64; i++) {
                out.write(block);
            }
        }
        Path stream = sandbox.resolve("stream");
        long t0 = System.nanoTime();
        vsm.run("export", "slow:100/vm-100-disk-1.raw", "raw+size", stream.toString())
                .ok();
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(Files.size(stream)).isEqualTo(8 + (64L << 20));
        assertThat(seconds).as("64 MiB at 8 MiB/s").isBetween(6.5, 24.0);

        t0 = System.nanoTime();
        vsm.run(
                        "export",
                        "slow:100/vm-100-disk-1.raw",
                        "raw+size",
                        sandbox.resolve("again").toString(),
                        "--bwlimit",
                        "0")
                .ok();
        assertThat((System.nanoTime() - t0) / 1e9)
                .as("root's --bwlimit 0 lifts it")
                .isLessThan(5.0);
    }
}
