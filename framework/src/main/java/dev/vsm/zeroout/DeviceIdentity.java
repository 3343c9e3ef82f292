package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What tells that two block device nodes reach the same data, whatever they are called: a
 * second path to one LUN, a second loop device on one file, a node made with {@code mknod}. Each
 * device has a few marks, and two devices that share one are the same:
 *
 * <ul>
 *   <li>its device number ({@code <sysfs>/class/block/<name>/dev}, and its node's own);
 *   <li>for a loop device (or a partition of one), the file behind it, by device and inode
 *       ({@code <sysfs>/block/<loop>/loop/backing_file}, then {@code stat}), or the device number
 *       when that file is a block device itself;
 *   <li>the UUID in an LVM2 label read from the device itself (the label's
 *       {@code LABELONE ... LVM2 001} header in one of its first four sectors, then the
 *       physical volume header it points to), which every path to one physical volume shows.
 * </ul>
 *
 * <p>Two loop devices on one file count as the same even when their offsets keep them apart:
 * refusing too much is the safe side of a wipe.
 */
final class DeviceIdentity {
    private static final int SECTOR = 512;
    private static final int LABEL_SECTORS = 4;
    private static final int UUID_LENGTH = 32;

    private final Sysfs sysfs;

    DeviceIdentity(Sysfs sysfs) {
        this.sysfs = requireNonNull(sysfs, "sysfs");
    }

    /**
     * The marks of the device with kernel name {@code name}, each with the words that say it in
     * a refusal ({@code the same backing file /srv/disk.img}).
     *
     * @param node its device node, whose number counts too and which is read for an LVM2 label
     */
    Map<String, String> marks(String name, Path node) {
        Map<String, String> marks = new LinkedHashMap<>();
        deviceNumber(name).ifPresent(n -> marks.put("dev " + n, "the same device number " + n));
        try {
            if (BlockDevice.isBlockDevice(node)) {
                String n = number((Long) Files.getAttribute(node, "unix:rdev"));
                marks.putIfAbsent("dev " + n, "the same device number " + n);
            }
        } catch (IOException | UnsupportedOperationException | ClassCastException e) {
            // sysfs's number stands
        }
        backingFile(sysfs.queueOf(name)).ifPresent(file -> {
            try {
                if (BlockDevice.isBlockDevice(file)) {
                    String n = number((Long) Files.getAttribute(file, "unix:rdev"));
                    marks.put("dev " + n, "on the same device " + file);
                } else {
                    marks.put(
                            "file " + Files.getAttribute(file, "unix:dev") + ":" + Files.getAttribute(file, "unix:ino"),
                            "the same backing file " + file);
                }
            } catch (IOException | UnsupportedOperationException | ClassCastException e) {
                marks.put("path " + file, "the same backing file " + file);
            }
        });
        lvmUuid(node).ifPresent(uuid -> marks.put("pv " + uuid, "the same LVM physical volume UUID " + uuid));
        return marks;
    }

    /** {@code <sysfs>/class/block/<name>/dev}: {@code 7:4}. */
    private Optional<String> deviceNumber(String name) {
        return firstLine(sysfs.root().resolve("class/block").resolve(name).resolve("dev"))
                .filter(s -> s.matches("\\d{1,10}:\\d{1,10}"));
    }

    /** The file a loop device reads and writes; empty for a device that is no loop device, or a file that is gone. */
    private Optional<Path> backingFile(String disk) {
        return firstLine(sysfs.root().resolve("block").resolve(disk).resolve("loop/backing_file"))
                .filter(s -> s.startsWith("/") && !s.endsWith(" (deleted)") && s.indexOf('\0') < 0)
                .map(Path::of);
    }

    /** Linux's dev_t as {@code major:minor}: 12 bits of major above 8 bits of minor, the rest of each higher up. */
    static String number(long rdev) {
        long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
        long minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
        return major + ":" + minor;
    }

    /** The physical volume UUID of the LVM2 label on the device, if it has one (read only). */
    static Optional<String> lvmUuid(Path node) {
        ByteBuffer head = ByteBuffer.allocate(SECTOR * LABEL_SECTORS).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel in = FileChannel.open(node, StandardOpenOption.READ)) {
            while (head.hasRemaining() && in.read(head) > 0) {
                // until the four sectors are read or the device ends
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        int length = head.position();
        for (int at = 0; at + SECTOR <= length; at += SECTOR) {
            if (!text(head, at, 8).equals("LABELONE") || !text(head, at + 24, 8).equals("LVM2 001")) {
                continue;
            }
            long offset = Integer.toUnsignedLong(head.getInt(at + 20));
            if (offset < 32 || offset + UUID_LENGTH > SECTOR) {
                return Optional.empty();
            }
            String uuid = text(head, at + (int) offset, UUID_LENGTH);
            return uuid.matches("[0-9A-Za-z!#]{32}") ? Optional.of(uuid) : Optional.empty();
        }
        return Optional.empty();
    }

    private static String text(ByteBuffer buffer, int at, int length) {
        byte[] bytes = new byte[length];
        buffer.get(at, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static Optional<String> firstLine(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.findFirst().map(String::strip).filter(s -> !s.isEmpty());
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }
}
