package dev.vsm.cli.command;

import dev.vsm.engine.StorageManager.VolumeDetails;
import dev.vsm.qemu.QemuImgCommands;
import dev.vsm.spi.Feature;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.VolumeId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm info <volume>}: what a volume is and what its image says about itself. For a qcow2
 * volume also the L2 cache that maps all of it ({@code l2-cache-size}) and the options that open
 * it with that cache ({@code image-opts}, for {@code qemu-img --image-opts} or {@code qemu -drive}).
 */
@Command(name = "info", description = "Show a volume's parsed name, format, sizes, backing volume and qcow2 details.")
public final class InfoCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Override
    void execute() {
        VolumeDetails d = session().manager().info(VolumeId.parse(volume));
        Map<String, Object> m = describe(d);
        List<SnapshotLayer> layers = session().manager().snapshotInfo(d.volid());
        if (!layers.isEmpty()) {
            m.put("layers", layers.stream().map(InfoCommand::describe).toList());
        }
        output.print(
                out(),
                m,
                o -> m.forEach((k, v) -> {
                    if (k.equals("layers")) {
                        layers.forEach(l -> o.println("layer: " + text(l)));
                    } else if (v != null) {
                        o.println(k + ": " + v);
                    }
                }));
    }

    /**
     * A layer of the volume's snapshots in JSON, with pve's {@code volume_snapshot_info} keys
     * ({@code order}, {@code parent}, {@code child}, {@code file}, {@code volid},
     * {@code virtual-size}, {@code timestamp}); what a layer has not is left out.
     */
    static Map<String, Object> describe(SnapshotLayer l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", l.name());
        m.put("order", l.order());
        putIfSet(m, "parent", l.parent());
        putIfSet(m, "child", l.child());
        putIfSet(m, "file", l.path() == null ? null : l.path().toString());
        putIfSet(m, "volid", l.volid());
        putIfSet(m, "virtual-size", l.virtualSize());
        putIfSet(m, "timestamp", l.ctime());
        return m;
    }

    /** One line per layer: its order and name, then each field it has as {@code key=value}. */
    static String text(SnapshotLayer l) {
        StringBuilder line = new StringBuilder().append(l.order()).append(' ').append(l.name());
        describe(l).forEach((k, v) -> {
            if (!k.equals("name") && !k.equals("order")) {
                line.append(' ').append(k).append('=').append(v);
            }
        });
        return line.toString();
    }

    private static void putIfSet(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    static Map<String, Object> describe(VolumeDetails d) {
        ImageInfo img = d.image();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", d.volid().toString());
        m.put("path", d.path().toString());
        m.put("vtype", d.name().type().id());
        m.put("name", d.name().name());
        m.put("vmid", d.name().vmid());
        m.put("basename", d.name().baseName());
        m.put("basevmid", d.name().baseVmid());
        m.put("isBase", d.name().isBase());
        m.put("format", img.format());
        m.put("size", img.virtualSize());
        m.put("used", img.actualSize());
        m.put("backing-volid", d.backingVolid());
        m.put("backing-file", img.backingFile());
        m.put("backing-format", img.backingFormat());
        if (img.clusterSize() != null) {
            m.put("cluster-size", img.clusterSize());
            m.put("extended-l2", img.extendedL2());
            m.put("l2-cache-size", img.l2CacheBytes());
            m.put("image-opts", QemuImgCommands.imageOpts(d.path(), isBlockDevice(d.path()), img));
        }
        m.put("ctime", img.ctime());
        m.put("features", d.features().stream().map(Feature::id).collect(Collectors.joining(",")));
        if (!d.snapshots().isEmpty()) {
            m.put("snapshots", String.join(",", d.snapshots()));
        }
        return m;
    }

    /** An LV's path: a block device, or (where device nodes are absent) a path under /dev. */
    private static boolean isBlockDevice(Path path) {
        return path.startsWith("/dev/")
                || (Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path));
    }
}
