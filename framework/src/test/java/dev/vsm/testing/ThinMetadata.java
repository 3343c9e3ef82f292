package dev.vsm.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Thin pools and thin volumes for a {@link LoopVolumeGroup} on a host without device-mapper,
 * where lvm2 refuses to create them: they are written straight into the group's metadata.
 * {@code vgcfgbackup -f} exports the metadata as text, the LVs are added in lvm2's text format
 * (a pool is an LV with one {@code thin-pool} segment naming its hidden {@code <pool>_tdata} and
 * {@code <pool>_tmeta} LVs, which hold real extents of the PV; a thin volume is an LV with one
 * {@code thin} segment naming its pool, a device id and, for a snapshot, its origin), and
 * {@code vgcfgrestore --force -f} imports the result. From then on {@code lvs}, {@code vgs},
 * {@code lvrename} and {@code lvchange} handle them for real (their state reads {@code X},
 * unknown, as no kernel can be asked).
 *
 * <pre>{@code
 * ThinMetadata.of(vg).pool("data", 64).volume("data", "vm-100-disk-0", 16).write();
 * }</pre>
 *
 * <p>Sizes are MiB, multiples of the group's extent size (4 MiB). A pool's metadata LV is one
 * extent. The pool's data and metadata LVs are placed in the first free extents of the PV, so
 * pools may be written before or after other LVs. Each {@link #write()} adds to what is there.
 */
public final class ThinMetadata {
    private static final long MIB = 1024 * 1024;
    private static final Pattern EXTENT_SIZE = Pattern.compile("extent_size = (\\d+)");
    private static final Pattern DEVICE_ID = Pattern.compile("device_id = (\\d+)");
    private static final Pattern TRANSACTION_ID = Pattern.compile("transaction_id = (\\d+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final LoopVolumeGroup vg;
    private final List<Pool> pools = new ArrayList<>();
    private final List<ThinVolume> volumes = new ArrayList<>();

    /**
     * A thin pool to write.
     *
     * @param name    the pool LV's name
     * @param dataMiB the pool's (data) size
     */
    record Pool(String name, long dataMiB) {
        Pool {
            requireNonNull(name, "name");
        }
    }

    /**
     * A thin volume to write.
     *
     * @param pool           its pool
     * @param name           its LV name
     * @param mib            its virtual size
     * @param origin         for a thin snapshot, the LV it is a snapshot of; else null
     * @param readOnly       permission {@code r} (snapshots made with {@code -pr}, base volumes)
     * @param activationSkip the activation-skip flag ({@code -ky}: snapshots, base volumes)
     */
    record ThinVolume(String pool, String name, long mib, String origin, boolean readOnly, boolean activationSkip) {
        ThinVolume {
            requireNonNull(pool, "pool");
            requireNonNull(name, "name");
        }
    }

    private ThinMetadata(LoopVolumeGroup vg) {
        this.vg = requireNonNull(vg, "vg");
    }

    public static ThinMetadata of(LoopVolumeGroup vg) {
        return new ThinMetadata(vg);
    }

    /** A thin pool of {@code dataMiB} MiB data (and one extent of metadata). */
    public ThinMetadata pool(String name, long dataMiB) {
        pools.add(new Pool(name, dataMiB));
        return this;
    }

    /** A writable thin volume of {@code mib} MiB virtual size, as {@code lvcreate -V} makes it. */
    public ThinMetadata volume(String pool, String name, long mib) {
        volumes.add(new ThinVolume(pool, name, mib, null, false, false));
        return this;
    }

    /** A read-only thin snapshot of {@code origin} that skips activation, as {@code lvcreate -s -pr} makes it. */
    public ThinMetadata snapshot(String pool, String name, String origin, long mib) {
        volumes.add(new ThinVolume(pool, name, mib, requireNonNull(origin, "origin"), true, true));
        return this;
    }

    /** A read-only thin volume that skips activation, as {@code create-base} leaves a base volume. */
    public ThinMetadata base(String pool, String name, long mib) {
        volumes.add(new ThinVolume(pool, name, mib, null, true, true));
        return this;
    }

    /** Exports the group's metadata, adds the pools and volumes, and restores it; fails the test when lvm2 refuses. */
    public void write() {
        Path file = null;
        try {
            file = Files.createTempFile("vsm-thin-", ".vg");
            vg.lvm("vgcfgbackup", "-f", file.toString(), vg.name());
            String edited = edit(Files.readString(file));
            Files.writeString(file, edited);
            vg.lvm("vgcfgrestore", "--force", "-f", file.toString(), vg.name());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    /** The metadata text with the new LVs added. */
    private String edit(String text) {
        if (!text.contains("\t\tpv0 {")) {
            throw new IllegalStateException("expected one physical volume pv0 in the metadata of " + vg.name());
        }
        long extentBytes = number(EXTENT_SIZE, text) * 512;
        FreeExtents free = FreeExtents.of(vg);
        StringBuilder lvs = new StringBuilder();
        long created = Instant.now().getEpochSecond();
        for (Pool pool : pools) {
            long dataExtents = extents(pool.dataMiB(), extentBytes);
            lvs.append(lv(
                    pool.name(),
                    List.of("READ", "WRITE", "VISIBLE"),
                    List.of(),
                    created,
                    """
                    type = "thin-pool"
                    metadata = "%s_tmeta"
                    pool = "%s_tdata"
                    transaction_id = 0
                    chunk_size = 128
                    discards = "passdown"
                    zero_new_blocks = 1""".formatted(pool.name(), pool.name()),
                    dataExtents));
            lvs.append(linear(pool.name() + "_tmeta", free.take(1), 1, created));
            lvs.append(linear(pool.name() + "_tdata", free.take(dataExtents), dataExtents, created));
        }
        long deviceId = max(DEVICE_ID, text);
        for (ThinVolume v : volumes) {
            deviceId++;
            List<String> status = v.readOnly() ? List.of("READ", "VISIBLE") : List.of("READ", "WRITE", "VISIBLE");
            List<String> flags = v.activationSkip() ? List.of("ACTIVATION_SKIP") : List.of();
            String segment = """
                    type = "thin"
                    thin_pool = "%s"
                    transaction_id = %d
                    device_id = %d""".formatted(v.pool(), deviceId - 1, deviceId)
                    + (v.origin() == null ? "" : "\norigin = \"" + v.origin() + "\"");
            lvs.append(lv(v.name(), status, flags, created, segment, extents(v.mib(), extentBytes)));
        }
        String result = insert(text, lvs.toString());
        return raisePoolTransactionIds(result, deviceId);
    }

    /** Adds LV sections at the end of {@code logical_volumes}, making that section when the group has no LVs yet. */
    private static String insert(String text, String lvs) {
        int vgEnd = text.lastIndexOf("\n}");
        if (text.contains("\tlogical_volumes {")) {
            int sectionEnd = text.lastIndexOf("\t}", vgEnd);
            return text.substring(0, sectionEnd) + lvs + text.substring(sectionEnd);
        }
        return text.substring(0, vgEnd + 1) + "\n\tlogical_volumes {\n" + lvs + "\t}\n" + text.substring(vgEnd + 1);
    }

    /** Every pool's transaction id becomes the highest device id: each thin volume's creation was one transaction. */
    private static String raisePoolTransactionIds(String text, long transactionId) {
        StringBuilder out = new StringBuilder();
        Matcher pool = Pattern.compile("type = \"thin-pool\"[^}]*?transaction_id = (\\d+)")
                .matcher(text);
        int last = 0;
        while (pool.find()) {
            out.append(text, last, pool.start(1)).append(transactionId);
            last = pool.end(1);
        }
        return out.append(text.substring(last)).toString();
    }

    private static String lv(
            String name, List<String> status, List<String> flags, long created, String segment, long extents) {
        return """

                \t\t%s {
                \t\t\tid = "%s"
                \t\t\tstatus = [%s]
                \t\t\tflags = [%s]
                \t\t\tcreation_time = %d
                \t\t\tcreation_host = "vsm-test"
                \t\t\tsegment_count = 1

                \t\t\tsegment1 {
                \t\t\t\tstart_extent = 0
                \t\t\t\textent_count = %d

                %s
                \t\t\t}
                \t\t}
                """.formatted(
                        name,
                        uuid(),
                        quoted(status),
                        quoted(flags),
                        created,
                        extents,
                        segment.lines()
                                .map(l -> "\t\t\t\t" + l)
                                .reduce((a, b) -> a + "\n" + b)
                                .orElse(""));
    }

    private static String linear(String name, long start, long extents, long created) {
        return lv(name, List.of("READ", "WRITE"), List.of(), created, """
                type = "striped"
                stripe_count = 1

                stripes = [
                \t"pv0", %d
                ]""".formatted(start), extents);
    }

    private static String quoted(List<String> words) {
        return String.join(", ", words.stream().map(w -> "\"" + w + "\"").toList());
    }

    private static long extents(long mib, long extentBytes) {
        if (mib <= 0 || mib * MIB % extentBytes != 0) {
            throw new IllegalArgumentException(
                    mib + " MiB is not a positive multiple of the extent size (" + extentBytes + " bytes)");
        }
        return mib * MIB / extentBytes;
    }

    private static long number(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in the volume group metadata");
        }
        return Long.parseLong(m.group(1));
    }

    private static long max(Pattern pattern, String text) {
        long max = 0;
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            max = Math.max(max, Long.parseLong(m.group(1)));
        }
        return max;
    }

    /** An LVM UUID: 32 letters and digits in groups of 6-4-4-4-4-4-6. */
    private static String uuid() {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder s = new StringBuilder();
        int[] groups = {6, 4, 4, 4, 4, 4, 6};
        for (int g = 0; g < groups.length; g++) {
            if (g > 0) {
                s.append('-');
            }
            for (int i = 0; i < groups[g]; i++) {
                s.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
            }
        }
        return s.toString();
    }

    /** The free extents of the group's PV, handed out first-fit. */
    private static final class FreeExtents {
        private final List<long[]> segments;

        private FreeExtents(List<long[]> segments) {
            this.segments = segments;
        }

        /** From {@code pvs --segments}: segments without an LV are free. */
        static FreeExtents of(LoopVolumeGroup vg) {
            List<long[]> free = new ArrayList<>();
            String report = vg.lvm(
                    "pvs",
                    "--segments",
                    "--noheadings",
                    "--separator",
                    ":",
                    "-o",
                    "pvseg_start,pvseg_size,lv_name",
                    vg.device());
            for (String line :
                    report.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
                String[] f = line.split(":", -1);
                if (f.length == 3 && f[2].isEmpty()) {
                    free.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
                }
            }
            return new FreeExtents(free);
        }

        /** The first extent of {@code count} free ones in a row. */
        long take(long count) {
            for (long[] segment : segments) {
                if (segment[1] >= count) {
                    long start = segment[0];
                    segment[0] += count;
                    segment[1] -= count;
                    return start;
                }
            }
            throw new IllegalStateException("no " + count + " free extents in a row left in the test volume group");
        }
    }
}
