package dev.vsm.lvm;

import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The storage properties the lvm and lvmthin schemas share: the volume group first and the
 * common ones last, each type's own in between ({@link #properties}). Also reads the required
 * ones from a section.
 */
public final class LvmProperties {
    public static final String VGNAME = "vgname";
    /** What an LVM-backed storage can hold: VM disks and container volumes. */
    public static final Set<ContentType> CONTENT =
            Collections.unmodifiableSet(EnumSet.of(ContentType.IMAGES, ContentType.ROOTDIR));

    private LvmProperties() {}

    /** {@code vgname}: the volume group, required, fixed once the storage exists. */
    public static PropertySpec vgname() {
        return lvmName(VGNAME, "the LVM volume group");
    }

    /** A required, fixed property naming a volume group or an LV, as {@link LvmNames} allows it. */
    public static PropertySpec lvmName(String key, String description) {
        return PropertySpec.string(key, description).asRequired().asFixed().withPattern(LvmNames.REGEX);
    }

    /**
     * A schema's properties in pve's order: {@link #vgname}, the type's own, then {@code nodes},
     * {@code shared} when the storage may be shared, {@code disable}, {@code content}
     * ({@link #CONTENT}) and {@code bwlimit}.
     */
    public static List<PropertySpec> properties(boolean shareable, PropertySpec... own) {
        List<PropertySpec> properties = new ArrayList<>();
        properties.add(vgname());
        properties.addAll(List.of(own));
        properties.add(CommonProperties.nodes());
        if (shareable) {
            properties.add(CommonProperties.shared());
        }
        properties.add(CommonProperties.disable());
        properties.add(CommonProperties.content(CONTENT));
        properties.add(CommonProperties.bwlimit());
        return List.copyOf(properties);
    }

    /** The section's volume group; bad input when it has none. */
    public static String vgname(StorageConfig config) {
        return required(config, VGNAME);
    }

    /** A required string of the section; bad input {@code missing value for required option} when it has none. */
    public static String required(StorageConfig config, String key) {
        return config.string(key)
                .orElseThrow(() -> StorageException.badInput(
                        "storage '%s': missing value for required option '%s'", config.id(), key));
    }
}
