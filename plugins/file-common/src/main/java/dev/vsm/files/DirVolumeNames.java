package dev.vsm.files;

import static dev.vsm.files.ContentFileNames.BACKUP_EXT;
import static dev.vsm.files.ContentFileNames.FILE;
import static dev.vsm.files.ContentFileNames.IMPORT_EXT;
import static dev.vsm.files.ContentFileNames.ISO_EXT;
import static dev.vsm.files.ContentFileNames.SAFE_CHAR_WITH_SPACE;
import static dev.vsm.files.ContentFileNames.VZTMPL_EXT;
import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Volume names of storages that keep volumes as files under a path (pve's base
 * {@code Plugin::parse_volname}). The first matching form wins:
 *
 * <pre>
 * &lt;basevmid&gt;/&lt;basename&gt;/&lt;vmid&gt;/&lt;name&gt;   linked clone: images/&lt;vmid&gt;/&lt;name&gt;, backed by images/&lt;basevmid&gt;/&lt;basename&gt;
 * &lt;vmid&gt;/&lt;name&gt;                        image: images/&lt;vmid&gt;/&lt;name&gt;
 * iso/&lt;file&gt;.iso|img                     ISO image
 * vztmpl/&lt;file&gt;.tar[.gz|.xz|.zst|.bz2]   container template
 * backup/&lt;file&gt;.vma|tar|tgz[.&lt;comp&gt;]   vzdump archive (owner taken from vzdump-&lt;type&gt;-&lt;vmid&gt;-...)
 * snippets/&lt;file&gt;                       snippet
 * import/&lt;x&gt;.ova/&lt;disk&gt;.qcow2|raw|vmdk  a disk inside an OVA (format ova+&lt;ext&gt;)
 * import/&lt;file&gt;.ova|ovf|qcow2|raw|vmdk   import source
 * </pre>
 *
 * <p>One deliberate difference from pve: a VMID must be written canonically (no leading zeros) and
 * fit in an int, so that a volume name and the directory it maps to always agree.
 */
public final class DirVolumeNames {
    private static final Pattern LINKED_CLONE = Pattern.compile("(\\d+)/(\\S+)/(\\d+)/(\\S+)");
    private static final Pattern IMAGE = Pattern.compile("(\\d+)/(\\S+)");
    private static final Pattern ISO = Pattern.compile("iso/(" + FILE + ISO_EXT + ")");
    private static final Pattern VZTMPL = Pattern.compile("vztmpl/(" + FILE + VZTMPL_EXT + ")");
    private static final Pattern BACKUP = Pattern.compile("backup/(" + FILE + BACKUP_EXT + ")");
    private static final Pattern BACKUP_OWNER = Pattern.compile("vzdump-(openvz|lxc|qemu)-(\\d+)-.+");
    private static final Pattern SNIPPETS = Pattern.compile("snippets/(" + FILE + ")");
    private static final Pattern OVA_CONTENT = Pattern.compile(
            "import/(" + SAFE_CHAR_WITH_SPACE + "+\\.ova/" + SAFE_CHAR_WITH_SPACE + "+\\.(qcow2|raw|vmdk))");
    private static final Pattern IMPORT = Pattern.compile("import/(" + SAFE_CHAR_WITH_SPACE + "+" + IMPORT_EXT + ")");
    /** The longest file name Linux file systems take (NAME_MAX). */
    private static final int MAX_NAME_BYTES = 255;

    private static final Pattern CANONICAL_NUMBER = Pattern.compile("0|[1-9][0-9]{0,9}");

    private DirVolumeNames() {}

    /**
     * Parses a volume name. Fails (bad input) with pve's messages:
     * {@code unable to parse directory volume name '<volname>'}, or those of
     * {@link ImageFileName#parse} for a bad image file name.
     */
    public static VolumeName parse(String volname) {
        requireNonNull(volname, "volname");
        if (!safeComponents(volname)) {
            throw unparsable(volname);
        }
        Matcher m = LINKED_CLONE.matcher(volname);
        if (m.matches()) {
            String baseName = m.group(2);
            ImageFileName.parse(baseName);
            ImageFileName image = ImageFileName.parse(m.group(4));
            Integer baseVmid = vmid(m.group(1), volname);
            Integer vmid = vmid(m.group(3), volname);
            return VolumeName.builder(volname, ContentType.IMAGES, image.name(), image.format())
                    .vmid(vmid)
                    .base(baseName, baseVmid)
                    .isBase(image.isBase())
                    .build();
        }
        m = IMAGE.matcher(volname);
        if (m.matches()) {
            ImageFileName image = ImageFileName.parse(m.group(2));
            Integer vmid = vmid(m.group(1), volname);
            return VolumeName.builder(volname, ContentType.IMAGES, image.name(), image.format())
                    .vmid(vmid)
                    .isBase(image.isBase())
                    .build();
        }
        m = ISO.matcher(volname);
        if (m.matches()) {
            return file(volname, ContentType.ISO, m.group(1), null, VolumeFormat.RAW.id());
        }
        m = VZTMPL.matcher(volname);
        if (m.matches()) {
            return file(volname, ContentType.VZTMPL, m.group(1), null, VolumeFormat.RAW.id());
        }
        m = BACKUP.matcher(volname);
        if (m.matches()) {
            String file = m.group(1);
            Matcher owner = BACKUP_OWNER.matcher(file);
            Integer vmid = owner.matches() ? parseCanonical(owner.group(2)) : null;
            return file(volname, ContentType.BACKUP, file, vmid, VolumeFormat.RAW.id());
        }
        m = SNIPPETS.matcher(volname);
        if (m.matches()) {
            return file(volname, ContentType.SNIPPETS, m.group(1), null, VolumeFormat.RAW.id());
        }
        m = OVA_CONTENT.matcher(volname);
        if (m.matches()) {
            return file(volname, ContentType.IMPORT, m.group(1), null, "ova+" + m.group(2));
        }
        m = IMPORT.matcher(volname);
        if (m.matches()) {
            return file(volname, ContentType.IMPORT, m.group(1), null, m.group(2));
        }
        throw unparsable(volname);
    }

    /**
     * Beyond pve: no component is {@code .} or {@code ..} (pve's {@code snippets/([^/]+)} takes
     * {@code snippets/..}, the storage's own directory), none is longer than a file name may be
     * (255 bytes), and no control character appears anywhere. Such a name can only be a mistake
     * or an attack; refusing it here keeps every path a volume name maps to inside its
     * sub-directory and every message one printable line.
     */
    private static boolean safeComponents(String volname) {
        for (int i = 0; i < volname.length(); i++) {
            char c = volname.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return false;
            }
        }
        for (String component : volname.split("/", -1)) {
            if (component.equals(".")
                    || component.equals("..")
                    || component.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                return false;
            }
        }
        return true;
    }

    private static VolumeName file(String volname, ContentType type, String name, Integer vmid, String format) {
        return VolumeName.builder(volname, type, name, format).vmid(vmid).build();
    }

    private static Integer vmid(String digits, String volname) {
        Integer vmid = parseCanonical(digits);
        if (vmid == null) {
            throw unparsable(volname);
        }
        return vmid;
    }

    /** The number, or null when it has leading zeros or does not fit in an int. */
    static Integer parseCanonical(String digits) {
        if (!CANONICAL_NUMBER.matcher(digits).matches()) {
            return null;
        }
        long n = Long.parseLong(digits);
        return n <= Integer.MAX_VALUE ? (int) n : null;
    }

    private static StorageException unparsable(String volname) {
        return StorageException.badInput("unable to parse directory volume name '%s'", VolumeId.printable(volname));
    }
}
