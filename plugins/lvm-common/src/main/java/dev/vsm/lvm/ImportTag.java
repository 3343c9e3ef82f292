package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The LV tag that marks a volume an import is still writing: {@code vsm-importing.<token>.<node>}.
 * lvcreate gives it to the new LV, and it is deleted only once {@code qemu-img convert} has
 * succeeded, so an LV that still carries it after its import ended (a vsm killed with SIGKILL, a
 * host that crashed) is known to be partial: it is not listed, and {@code vsm cleanup} and the
 * next import remove it.
 *
 * <p>The importing process holds the host-wide claim {@link #claimName()} for as long as it
 * works, so a tagged LV whose claim is free belongs to no live process. The node is in the tag
 * because a shared VG is seen by other hosts, whose claims are not visible here.
 *
 * @param token random, 16 hex digits: names the claim
 * @param node  the host that imports, reduced to letters, digits, {@code _} and {@code -}
 */
public record ImportTag(String token, String node) {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String PREFIX = "vsm-importing.";
    private static final Pattern TAG = Pattern.compile(Pattern.quote(PREFIX) + "([0-9a-f]{16})\\.([A-Za-z0-9_-]+)");

    public ImportTag {
        requireNonNull(token, "token");
        requireNonNull(node, "node");
    }

    /** A new tag for an import on {@code nodeName}. */
    public static ImportTag fresh(String nodeName) {
        return new ImportTag(HexFormat.of().toHexDigits(RANDOM.nextLong()), safeNode(nodeName));
    }

    /** The node as tags carry it. */
    public static String safeNode(String nodeName) {
        return nodeName.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** The tag, if {@code tag} is one (of any node). */
    public static Optional<ImportTag> parse(String tag) {
        Matcher m = TAG.matcher(tag);
        return m.matches() ? Optional.of(new ImportTag(m.group(1), m.group(2))) : Optional.empty();
    }

    /** The import tag an LV carries, if any. */
    public static Optional<ImportTag> of(LogicalVolume lv) {
        return lv.tags().stream()
                .map(ImportTag::parse)
                .flatMap(Optional::stream)
                .findFirst();
    }

    /** Whether an LV is (or was, until a crash) being written by an import: not a volume to list. */
    public static boolean isImporting(LogicalVolume lv) {
        return of(lv).isPresent();
    }

    public String tag() {
        return PREFIX + token + "." + node;
    }

    /** The claim ({@code StorageLocks.tryExclusive}) the importing process holds. */
    public String claimName() {
        return "lvm-import-" + token;
    }
}
