package dev.vsm.files;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which file names count as volumes of the non-image content types, and their formats (pve's
 * {@code ISO_EXT_RE_0}, {@code VZTMPL_EXT_RE_1}, {@code BACKUP_EXT_RE_2}, {@code IMPORT_EXT_RE_1}).
 * The extension rules are pve's exactly: iso and container template extensions are
 * case-insensitive, backup and import extensions are not.
 */
public final class ContentFileNames {
    /** A file name: no slash. */
    static final String FILE = "[^/]+";

    static final String ISO_EXT = "\\.(?i:iso|img)";
    /** Groups: 1 = {@code tar} for a plain tarball, 2 = the compression of a compressed one. */
    static final String VZTMPL_EXT = "\\.(?i:(tar)(?!\\.)|tar\\.(gz|xz|zst|bz2))";
    /** Groups: 1 = the whole extension ({@code vma.zst}), 2 = the compression. */
    static final String BACKUP_EXT = "\\.(tgz|(?:tar|vma)(?:\\.(gz|lzo|zst|bz2))?)";
    /** Group 1 = the format. */
    static final String IMPORT_EXT = "\\.(ova|ovf|qcow2|raw|vmdk)";

    static final String SAFE_CHAR = "[a-zA-Z0-9\\-.+=_]";
    static final String SAFE_CHAR_WITH_SPACE = "[ a-zA-Z0-9\\-.+=_]";

    private static final Pattern ISO = Pattern.compile(FILE + ISO_EXT);
    private static final Pattern VZTMPL = Pattern.compile(FILE + VZTMPL_EXT);
    private static final Pattern BACKUP = Pattern.compile(FILE + BACKUP_EXT);
    private static final Pattern IMPORT = Pattern.compile(SAFE_CHAR + "+" + IMPORT_EXT);

    private ContentFileNames() {}

    /** {@code iso} if the file is an ISO image ({@code *.iso}, {@code *.img}, any case). */
    public static Optional<String> isoFormat(String file) {
        return ISO.matcher(file).matches() ? Optional.of("iso") : Optional.empty();
    }

    /** A container template's format: {@code tar}, or {@code t} + compression ({@code tgz}, {@code txz}, {@code tzst}, {@code tbz2}). */
    public static Optional<String> templateFormat(String file) {
        Matcher m = VZTMPL.matcher(file);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(m.group(1) != null ? "tar" : "t" + m.group(2).toLowerCase(Locale.ROOT));
    }

    /** A backup archive's format: its whole extension ({@code vma.zst}, {@code tar.gz}, {@code tgz}, ...). */
    public static Optional<String> backupFormat(String file) {
        Matcher m = BACKUP.matcher(file);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * An import source's format ({@code ova}, {@code ovf}, {@code qcow2}, {@code raw}, {@code vmdk}),
     * for file names of safe characters only, as listed and mapped from paths.
     */
    public static Optional<String> importFormat(String file) {
        Matcher m = IMPORT.matcher(file);
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
