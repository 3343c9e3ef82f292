package dev.vsm.config;

import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.VolumeFormat;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Small stand-ins for the real plugins' schemas (written elsewhere), built from the SPI's
 * common properties: {@code dir} (required fixed {@code path}) and {@code lvm} (required fixed
 * {@code vgname}, a boolean, an integer enum, a number).
 */
final class TestSchemas {
    static final List<VolumeFormat> FORMATS = List.of(VolumeFormat.values());

    static final PluginSchema DIR = PluginSchema.builder()
            .properties(List.of(
                    PropertySpec.string("path", "base directory")
                            .withPattern("/[^;()]+")
                            .asRequired()
                            .asFixed(),
                    CommonProperties.content(EnumSet.allOf(ContentType.class)),
                    CommonProperties.nodes(),
                    CommonProperties.disable(),
                    CommonProperties.shared(),
                    CommonProperties.format(FORMATS),
                    CommonProperties.preallocation(),
                    CommonProperties.qcow2Subclusters(),
                    CommonProperties.qcow2ClusterSize(),
                    PropertySpec.bool("create-base-path", "create path if missing")
                            .withDefault(true),
                    PropertySpec.bool("snapshot-as-volume-chain", "qcow2 snapshots as backing chains")
                            .asFixed(),
                    PropertySpec.integer("max-protected-backups", "protected backups per guest"),
                    PropertySpec.string("prune-backups", "backup retention"),
                    PropertySpec.string("bwlimit", "bandwidth limits")))
            .content(EnumSet.allOf(ContentType.class), Set.of(ContentType.IMAGES, ContentType.ROOTDIR))
            .formats(FORMATS, VolumeFormat.RAW)
            .build();

    static final PluginSchema LVM = PluginSchema.builder()
            .properties(List.of(
                    PropertySpec.string("vgname", "volume group").asRequired().asFixed(),
                    PropertySpec.string("base", "base volume").asFixed(),
                    CommonProperties.content(Set.of(ContentType.IMAGES, ContentType.ROOTDIR)),
                    CommonProperties.nodes(),
                    CommonProperties.disable(),
                    CommonProperties.shared(),
                    PropertySpec.bool("saferemove", "zero out removed volumes").withDefault(false),
                    PropertySpec.integer("saferemove-stepsize", "zero-out step in MiB")
                            .withAllowed(List.of("1", "2", "4", "8", "16", "32")),
                    PropertySpec.string("saferemove_throughput", "cstream -t argument"),
                    PropertySpec.number("bwlimit-ratio", "a made-up number property")))
            .content(Set.of(ContentType.IMAGES, ContentType.ROOTDIR), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();

    /** The lookup the engine would hand over: {@code dir} and {@code lvm}, nothing else. */
    static final Function<String, Optional<PluginSchema>> LOOKUP =
            type -> Optional.ofNullable(Map.of("dir", DIR, "lvm", LVM).get(type));

    private TestSchemas() {}
}
