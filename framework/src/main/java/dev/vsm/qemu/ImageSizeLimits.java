package dev.vsm.qemu;

import dev.vsm.spi.HeldFile;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The largest virtual size an image file can have, checked before qemu-img is asked for more
 * (it fails then with "The image size is too large for file format", or half-way through a
 * resize: "Failed to grow the L1 table: File too large"). A size above the limit is bad input.
 *
 * <ul>
 *   <li>any format: qemu's block layer limit, {@code INT64_MAX} rounded down to 512 bytes;</li>
 *   <li>qcow2: what its L1 table (at most 32 MiB of 8-byte entries) can map: 2^22 L2 tables of
 *       {@code cluster / 8} entries ({@code / 16} with extended L2), each a cluster
 *       (64 KiB clusters: 2 PiB; 128 KiB with subclusters: 4 PiB);</li>
 *   <li>raw: a file as large as the virtual size; on ext4 at most 2^32 - 1 blocks (16 TiB - 4 KiB
 *       with 4 KiB blocks). Other file systems (xfs, btrfs, tmpfs) take files up to the block
 *       layer's limit.</li>
 * </ul>
 */
final class ImageSizeLimits {
    /** qemu's BDRV_MAX_LENGTH. */
    public static final long BLOCK_LAYER_MAX = Long.MAX_VALUE & ~511L;

    private static final long L1_ENTRIES = Qcow2Header.MAX_L1_BYTES / 8;

    private ImageSizeLimits() {}

    /** The largest qcow2 image with this cluster size. */
    public static long qcow2Max(int clusterBytes, boolean extendedL2) {
        long perL2 = clusterBytes / (extendedL2 ? 16 : 8);
        return Math.min(BLOCK_LAYER_MAX, L1_ENTRIES * perL2 * clusterBytes);
    }

    /**
     * Refuses {@code bytes} for an image at {@code path} (it need not exist; its nearest existing
     * directory names the file system).
     *
     * @param qcow2Cluster for qcow2: the cluster size in bytes; ignored for other formats
     */
    public static void check(Path path, String format, long bytes, int qcow2Cluster, boolean extendedL2) {
        if (bytes > BLOCK_LAYER_MAX || bytes < 0) {
            throw tooLarge(bytes, format, BLOCK_LAYER_MAX, "qemu's limit for any image");
        }
        if (VolumeFormat.QCOW2.is(format)) {
            long max = qcow2Max(qcow2Cluster, extendedL2);
            if (bytes > max) {
                throw tooLarge(
                        bytes,
                        format,
                        max,
                        String.format(
                                "a qcow2 image with %d-byte clusters%s; a larger " + "qcow2-cluster-size holds more",
                                qcow2Cluster, extendedL2 ? " and subclusters" : ""));
            }
        } else if (VolumeFormat.RAW.is(format)) {
            Optional<Long> max = fileSystemMax(path);
            if (max.isPresent() && bytes > max.get()) {
                throw tooLarge(
                        bytes,
                        format,
                        max.get(),
                        "the largest file of the ext4 file system holding '" + path.getParent() + "'");
            }
        }
    }

    private static StorageException tooLarge(long bytes, String format, long max, String what) {
        return StorageException.badInput(
                "size: %d bytes is more than a %s image can hold here: at most %d bytes (%s)",
                bytes, format, max, what);
    }

    /** ext4's largest file for the file system holding {@code path}; empty where none is known below the block layer's. */
    static Optional<Long> fileSystemMax(Path path) {
        // a file vsm holds open (/proc/<pid>/fd/<n>) is on the file system its descriptor leads to
        Path dir = HeldFile.isHeld(path) ? path : path.toAbsolutePath().getParent();
        while (dir != null && !Files.exists(dir)) {
            dir = dir.getParent();
        }
        if (dir == null) {
            return Optional.empty();
        }
        try {
            FileStore store = Files.getFileStore(dir);
            if (store.type().toLowerCase(Locale.ROOT).equals("ext4")) {
                return Optional.of(((1L << 32) - 1) * store.getBlockSize());
            }
        } catch (IOException | UnsupportedOperationException e) {
            // cannot tell: qemu-img will
        }
        return Optional.empty();
    }
}
