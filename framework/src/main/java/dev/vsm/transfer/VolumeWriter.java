package dev.vsm.transfer;

import dev.vsm.spi.HeldFile;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Writes a stream's data into an allocated volume, as pve's {@code dd of=<file> [conv=sparse]}
 * does: a regular file is emptied first and blocks of zeros are skipped (they stay holes); a block
 * device is written in place, skipping zero blocks only when it is known to read zeros. Nothing
 * is ever created: a path that does not exist (an LV without a device node) fails.
 */
final class VolumeWriter implements AutoCloseable {
    /** The block size of reads and writes (pve's {@code bs=64k}). */
    static final int BLOCK = 64 * 1024;

    private static final byte[] ZEROS = new byte[BLOCK];

    private final Path target;
    private final FileChannel channel;
    private final boolean regularFile;
    private final boolean skipZeros;
    private long position;

    private VolumeWriter(Path target, FileChannel channel, boolean regularFile, boolean skipZeros) {
        this.target = target;
        this.channel = channel;
        this.regularFile = regularFile;
        this.skipZeros = skipZeros;
    }

    /**
     * Opens a volume for writing.
     *
     * @param deviceReadsZeros for a block device: whether it reads zeros, so zero blocks may be skipped
     */
    static VolumeWriter open(Path target, boolean deviceReadsZeros) {
        // a file vsm holds open is checked through its descriptor; any other path's last name is no link
        boolean regular = HeldFile.isHeld(target)
                ? Files.isRegularFile(target)
                : Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS);
        if (!regular && !isBlockDevice(target)) {
            throw StorageException.failed("'%s' is neither a file nor a block device: not writing to it", target);
        }
        try {
            FileChannel ch = regular
                    ? FileChannel.open(target, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)
                    : FileChannel.open(target, StandardOpenOption.WRITE);
            return new VolumeWriter(target, ch, regular, regular || deviceReadsZeros);
        } catch (NoSuchFileException e) {
            throw StorageException.failed("'%s' does not exist", target);
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot open '%s' for writing: %s", target, e.getMessage());
        }
    }

    static boolean isBlockDevice(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            return mode instanceof Integer m && (m & 0170000) == 0060000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Writes {@code length} bytes of {@code buffer} at the current position (or skips them when they are all zero and may be skipped). */
    void write(byte[] buffer, int length) {
        try {
            if (!(skipZeros && allZero(buffer, length))) {
                ByteBuffer b = ByteBuffer.wrap(buffer, 0, length);
                long at = position;
                while (b.hasRemaining()) {
                    at += channel.write(b, at);
                }
            }
            position += length;
        } catch (IOException e) {
            throw StorageException.failed(e, "writing '%s' failed at byte %d: %s", target, position, e.getMessage());
        }
    }

    /** Bytes written (or skipped) so far. */
    long position() {
        return position;
    }

    /** Makes a file as long as what was written (skipped zeros at the end included) and flushes it to disk. */
    void finish() {
        try {
            if (regularFile && channel.size() < position) {
                channel.write(
                        ByteBuffer.allocate(1),
                        position - 1); // zeros skipped at the end: the last byte sets the length
            }
            channel.force(true);
        } catch (IOException e) {
            throw StorageException.failed(e, "writing '%s' failed: %s", target, e.getMessage());
        }
    }

    static boolean allZero(byte[] buffer, int length) {
        return Arrays.mismatch(buffer, 0, length, ZEROS, 0, length) < 0;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw StorageException.failed(e, "closing '%s' failed: %s", target, e.getMessage());
        }
    }
}
