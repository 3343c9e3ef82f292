package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The file name of a VM or container image on a path-based storage (pve's {@code parse_name_dir}):
 * {@code vm-100-disk-0.qcow2}, {@code base-100-disk-1.raw}, {@code subvol-101-disk-0.subvol}, or a
 * custom name such as {@code foo.raw}. The number in a standard name is not compared with the
 * directory it lives in, as in pve.
 *
 * @param name   the file name
 * @param format the format its extension names
 * @param isBase whether the name starts with {@code base-} (a template's image)
 */
public record ImageFileName(String name, VolumeFormat format, boolean isBase) {
    private static final Pattern STANDARD =
            Pattern.compile("(vm-|base-|subvol-)(\\d+)-[^/\\s]+\\.(raw|qcow2|vmdk|subvol)");
    private static final Pattern SNAPSHOT = Pattern.compile("snap-.*\\.qcow2");
    private static final int NAME_MAX = 255;
    private static final Pattern CUSTOM = Pattern.compile("(base-)?[^/\\s]+\\.(raw|qcow2|vmdk|subvol)");

    public ImageFileName {
        requireNonNull(name, "name");
        requireNonNull(format, "format");
    }

    /**
     * Parses an image file name. Fails (bad input) with pve's
     * {@code '<name>' is a snapshot filename, not a volume!} for {@code snap-*.qcow2} files and
     * {@code unable to parse volume filename '<name>'} for anything else it does not accept.
     */
    public static ImageFileName parse(String name) {
        requireNonNull(name, "name");
        if (hasControlCharacter(name)
                || (name.length() > NAME_MAX / 3
                        && name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > NAME_MAX)) {
            // beyond pve: no control characters, and no longer than a file name may be (NAME_MAX)
            throw StorageException.badInput("unable to parse volume filename '%s'", VolumeId.printable(name));
        }
        ImageFileName standard = standardOrNull(name);
        if (standard != null) {
            return standard;
        }
        Matcher m = STANDARD.matcher(name);
        if (m.matches()) {
            return new ImageFileName(
                    name, VolumeFormat.parse(m.group(3)), m.group(1).equals("base-"));
        }
        if (SNAPSHOT.matcher(name).matches()) {
            throw StorageException.badInput("'%s' is a snapshot filename, not a volume!", VolumeId.printable(name));
        }
        m = CUSTOM.matcher(name);
        if (m.matches()) {
            return new ImageFileName(name, VolumeFormat.parse(m.group(2)), m.group(1) != null);
        }
        throw StorageException.badInput("unable to parse volume filename '%s'", VolumeId.printable(name));
    }

    private static boolean hasControlCharacter(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #STANDARD}'s match without a regex (a listing parses every file name it finds), or
     * null when this does not find one ({@link #parse} then asks the patterns): a prefix, the
     * digits, '-', then a rest without '/' or whitespace that is a non-empty name, '.' and an
     * extension (the digits cannot end earlier: a '-' must follow them).
     */
    private static ImageFileName standardOrNull(String name) {
        String prefix = name.startsWith("vm-")
                ? "vm-"
                : name.startsWith("base-") ? "base-" : name.startsWith("subvol-") ? "subvol-" : null;
        if (prefix == null) {
            return null;
        }
        int i = prefix.length();
        while (i < name.length() && name.charAt(i) >= '0' && name.charAt(i) <= '9') {
            i++;
        }
        if (i == prefix.length() || i >= name.length() || name.charAt(i) != '-') {
            return null;
        }
        int rest = i + 1;
        for (int j = rest; j < name.length(); j++) {
            char c = name.charAt(j);
            if (c == '/' || c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r') {
                return null;
            }
        }
        for (VolumeFormat format : VolumeFormat.values()) {
            String extension = format.id();
            if (name.length() - rest > extension.length() + 1
                    && name.endsWith(extension)
                    && name.charAt(name.length() - extension.length() - 1) == '.') {
                return new ImageFileName(name, format, prefix.equals("base-"));
            }
        }
        return null;
    }

    /** Whether {@link #parse} accepts the name. */
    public static boolean isValid(String name) {
        try {
            parse(name);
            return true;
        } catch (StorageException e) {
            return false;
        }
    }
}
