package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Picks the next free disk name for a guest (pve's {@code get_next_vm_diskname}): the smallest
 * {@code <prefix>-<vmid>-disk-<n><suffix>} with {@code n} below {@value #MAX_VOLUMES_PER_GUEST}
 * that no existing name uses.
 *
 * <p>As in pve, a used number is found anywhere in an existing name or volume id (the match is not
 * anchored), the number is compared as written ({@code disk-007} does not take 7), and the dot of
 * the suffix matches any character.
 */
public final class DiskNames {
    /** How many disks one guest may have on one storage. */
    public static final int MAX_VOLUMES_PER_GUEST = 1024;

    private DiskNames() {}

    /**
     * The next free name.
     *
     * @param existing          names or volume ids already on the storage (any owner; others are ignored)
     * @param storeid           the storage, for the error message
     * @param vmid              the owning guest
     * @param format            the format asked for, or null; {@link VolumeFormat#SUBVOL} gives the prefix {@code subvol}, else {@code vm}
     * @param addSuffix         append {@code .<format>} to the name
     * @param sharedNumberSpace all formats share one number space (pve's rule for storages that can
     *                          hold subvols, i.e. dir): {@code vm-}, {@code base-}, {@code subvol-} and
     *                          {@code basevol-} names all count, whatever their suffix. Otherwise
     *                          only {@code vm-}/{@code base-} names with the same suffix count.
     * @throws StorageException (failed) {@code unable to allocate an image name for VM <vmid> in storage '<storeid>'}
     */
    public static String nextFree(
            Collection<String> existing,
            String storeid,
            int vmid,
            VolumeFormat format,
            boolean addSuffix,
            boolean sharedNumberSpace) {
        requireNonNull(existing, "existing");
        requireNonNull(storeid, "storeid");
        String fmt = format == null ? "" : format.id();
        String prefix = format == VolumeFormat.SUBVOL ? "subvol-" : "vm-";
        String suffix = addSuffix ? "." + fmt : "";

        Pattern used = sharedNumberSpace
                ? Pattern.compile("(vm|base|subvol|basevol)-" + vmid + "-disk-(\\d+)")
                : Pattern.compile("(vm|base)-" + vmid + "-disk-(\\d+)" + (addSuffix ? "." + Pattern.quote(fmt) : ""));
        Set<String> taken = new HashSet<>();
        for (String name : existing) {
            Matcher m = used.matcher(name);
            if (m.find()) {
                taken.add(m.group(2));
            }
        }
        for (int i = 0; i < MAX_VOLUMES_PER_GUEST; i++) {
            if (!taken.contains(Integer.toString(i))) {
                return prefix + vmid + "-disk-" + i + suffix;
            }
        }
        throw StorageException.failed("unable to allocate an image name for VM %d in storage '%s'", vmid, storeid);
    }
}
