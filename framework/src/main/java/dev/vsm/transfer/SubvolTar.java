package dev.vsm.transfer;

import dev.vsm.exec.DataFilter;
import dev.vsm.progress.ProgressMeter;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A subvol's {@code tar+size} data: pve's {@code tar} command lines (pve's
 * {@code COMMON_TAR_FLAGS}, {@code volume_export} and {@code volume_import}) and their runs. The
 * archive holds the directory's contents as {@code .}, owners as numbers, ACLs, the {@code user.*}
 * and {@code security.capability} xattrs, sparse files as sparse, and stays on the directory's
 * file system.
 */
final class SubvolTar {
    /** pve's {@code @COMMON_TAR_FLAGS}, in its order. */
    static final List<String> COMMON_FLAGS = List.of(
            "--one-file-system",
            "-p",
            "--sparse",
            "--numeric-owner",
            "--acls",
            "--xattrs",
            "--xattrs-include=user.*",
            "--xattrs-include=security.capability",
            "--warning=no-file-ignored",
            "--warning=no-xattr-write");

    private SubvolTar() {}

    /** {@code tar <flags> -cf - -C <dir> .}, as pve's {@code volume_export}. */
    static List<String> create(Path dir) {
        List<String> argv = new ArrayList<>();
        argv.add("tar");
        argv.addAll(COMMON_FLAGS);
        argv.addAll(List.of("-cf", "-", "-C", dir.toString(), "."));
        return argv;
    }

    /** {@code tar <flags> -C <dir> -xf -}, as pve's {@code volume_import}. */
    static List<String> extract(Path dir) {
        List<String> argv = new ArrayList<>();
        argv.add("tar");
        argv.addAll(COMMON_FLAGS);
        argv.addAll(List.of("-C", dir.toString(), "-xf", "-"));
        return argv;
    }

    /**
     * Writes the archive of {@code dir} to {@code out} (through {@code cstream} with a limit).
     *
     * @return the bytes written
     */
    static long send(Path dir, OutputStream out, BandwidthLimit limit, ProgressMeter meter, Interruption stop)
            throws IOException {
        List<List<String>> pipeline = limit == null ? List.of(create(dir)) : List.of(create(dir), limit.cstream());
        DataFilter tar = DataFilter.pipeline(pipeline, Path.of("/dev/null"));
        long sent;
        try {
            sent = ByteMover.copy(tar.output(), out, -1, meter, stop);
        } catch (IOException | RuntimeException e) {
            tar.abandon();
            throw e;
        }
        tar.close();
        return sent;
    }

    /**
     * Extracts the archive {@code in} holds (to its end) into {@code dir}, each header checked
     * before tar sees it ({@link TarStreamCheck}).
     *
     * @return the bytes read
     */
    static long receive(InputStream in, Path dir, ProgressMeter meter, Interruption stop) {
        DataFilter tar = DataFilter.fed(extract(dir));
        TarStreamCheck check = new TarStreamCheck(tar.input());
        long read;
        try {
            read = ByteMover.copy(in, check, -1, meter, stop);
            check.finish();
        } catch (IOException e) {
            if (check.tarGone()) {
                tar.close(); // tar ended early: its exit status and message say why
                throw StorageException.failed(e, "import: tar ended before the stream did: %s", e.getMessage());
            }
            tar.abandon();
            stop.check();
            throw StorageException.failed(e, "import: reading the stream failed: %s", e.getMessage());
        } catch (RuntimeException e) {
            tar.abandon();
            throw e;
        }
        tar.close();
        return read;
    }
}
