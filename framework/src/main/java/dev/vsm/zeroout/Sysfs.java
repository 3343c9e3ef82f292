package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The block-device part of sysfs, under a root that tests can fake: {@code $VSM_SYSFS}, else
 * {@code /sys}. Missing or unreadable files read as "nothing there", never as an error: sysfs is
 * advice (how big a write-zeroes batch may be, what holds a device), the device node decides.
 *
 * @param root the directory that stands for {@code /sys}
 */
public record Sysfs(Path root) {
    public Sysfs {
        requireNonNull(root, "root");
    }

    /**
     * {@code $VSM_SYSFS} when set and not blank, else {@code /sys}. As root, a directory from the
     * environment must pass {@link FileTrust}'s rule: what it says decides whether a device is in
     * use and how it is zeroed.
     */
    public static Sysfs fromEnvironment(Environment env) {
        Optional<String> fromEnv = env.nonBlank("VSM_SYSFS");
        fromEnv.ifPresent(dir -> FileTrust.requireTrustedAsRoot(
                Path.of(dir), "$VSM_SYSFS '" + dir + "'", "or unset VSM_SYSFS (the kernel's is /sys)"));
        return new Sysfs(Path.of(fromEnv.orElse("/sys")));
    }

    /**
     * {@code <root>/block/<disk>/queue/write_zeroes_max_bytes}: the largest write-zeroes request
     * the disk takes, 0 when it has none (or the file is missing or not a number).
     */
    public long writeZeroesMaxBytes(String disk) {
        return firstNumber(root.resolve("block").resolve(disk).resolve("queue/write_zeroes_max_bytes"))
                .orElse(0L);
    }

    /** {@code <root>/block/<disk>/queue/discard_max_bytes}: the largest discard the disk takes, 0 when none. */
    public long discardMaxBytes(String disk) {
        return firstNumber(root.resolve("block").resolve(disk).resolve("queue/discard_max_bytes"))
                .orElse(0L);
    }

    /** A device-mapper device's name ({@code <root>/class/block/<name>/dm/name}: {@code vg-lv}), if it is one. */
    public Optional<String> deviceMapperName(String name) {
        try (Stream<String> lines =
                Files.lines(root.resolve("class/block").resolve(name).resolve("dm/name"))) {
            return lines.findFirst().map(String::strip).filter(s -> !s.isEmpty());
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /**
     * The kernel's name of the block device with this number ({@code major:minor}: {@code <root>/dev/block/<number>}
     * links to its directory), if sysfs knows it.
     */
    public Optional<String> nameOf(String number) {
        try {
            Path dir = root.resolve("dev/block").resolve(number).toRealPath();
            return Optional.ofNullable(dir.getFileName()).map(Path::toString);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The whole disk whose request queue serves {@code name}: the parent disk for a partition
     * ({@code <root>/class/block/<name>/partition} exists; the parent is the directory that holds
     * the partition's own), else {@code name} itself.
     */
    public String queueOf(String name) {
        Path entry = root.resolve("class/block").resolve(name);
        if (!Files.exists(entry.resolve("partition"))) {
            return name;
        }
        try {
            Path parent = entry.toRealPath().getParent();
            return parent == null || parent.getFileName() == null
                    ? name
                    : parent.getFileName().toString();
        } catch (IOException e) {
            return name;
        }
    }

    /** The device's size from {@code <root>/class/block/<name>/size} (512-byte sectors), if known. */
    public Optional<Long> sizeBytes(String name) {
        return firstNumber(root.resolve("class/block").resolve(name).resolve("size"))
                .map(sectors -> sectors * 512);
    }

    /**
     * Bytes written to the device since boot: the sectors-written field (the 7th) of
     * {@code <root>/class/block/<name>/stat}, which counts write-zeroes requests too.
     */
    public Optional<Long> bytesWritten(String name) {
        try (Stream<String> lines =
                Files.lines(root.resolve("class/block").resolve(name).resolve("stat"))) {
            return lines.findFirst()
                    .map(l -> l.strip().split("\\s+"))
                    .filter(f -> f.length > 6 && f[6].matches("\\d{1,18}"))
                    .map(f -> Long.parseLong(f[6]) * 512);
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** What holds the device ({@code holders/}: device-mapper targets, md arrays, ...), empty when none. */
    public List<String> holders(String name) {
        return names(root.resolve("class/block").resolve(name).resolve("holders"));
    }

    /** The device's partitions: the sub-directories of its sysfs entry that hold a {@code partition} file. */
    public List<String> partitions(String name) {
        Path entry = root.resolve("class/block").resolve(name);
        try (Stream<Path> children = Files.list(entry)) {
            return children.filter(c -> Files.exists(c.resolve("partition")))
                    .map(c -> c.getFileName().toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static List<String> names(Path dir) {
        try (Stream<Path> children = Files.list(dir)) {
            return children.map(c -> c.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static Optional<Long> firstNumber(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.findFirst()
                    .map(String::strip)
                    .filter(s -> s.matches("\\d{1,18}"))
                    .map(Long::parseLong);
        } catch (IOException | java.io.UncheckedIOException e) {
            return Optional.empty();
        }
    }
}
