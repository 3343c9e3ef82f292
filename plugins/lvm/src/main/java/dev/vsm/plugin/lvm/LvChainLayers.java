package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.ChainLayers;
import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.Lvm;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The layers of a qcow2 volume's chain on thick LVM (pve 9's {@code snapshot-as-volume-chain}):
 * LVs of the storage's VG, {@code current} the volume's own LV {@code vm-<vmid>-disk-<n>.qcow2},
 * the snapshot {@code S} the LV {@code snap_vm-<vmid>-disk-<n>_S.qcow2} (pve's
 * {@code get_snap_name}); backing names are bare LV names, resolved in {@code /dev/<vg>/}. A new
 * layer is an LV made and formatted by {@link Qcow2Lvs}; a removed one goes as the storage's
 * removals go: {@code lvremove}, or with saferemove renamed {@code del-<name>} and left in
 * {@link #removed()} for the caller to zero and remove.
 */
final class LvChainLayers implements ChainLayers {
    /** pve's {@code pve-configid}, at most 40 characters: what a snapshot name may be. */
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_-]{1,39}");

    private final String vg;
    private final String name;
    private final String shortName;
    private final int vmid;
    private final StorageContext context;
    private final Lvm lvm;
    private final Qcow2Lvs lvs;
    private final boolean saferemove;
    private final Pattern snapshotLv;
    private final List<LogicalVolume> removed = new ArrayList<>();
    private final SnapshotLvSizes sizes;

    /**
     * @param name the volume's LV name ({@code current}), ending in {@code .qcow2}
     * @param saferemove whether a removed layer is renamed {@code del-<name>} for zeroing
     */
    LvChainLayers(String vg, String name, int vmid, StorageContext context, Lvm lvm, Qcow2Lvs lvs, boolean saferemove) {
        this.vg = requireNonNull(vg, "vg");
        this.name = requireNonNull(name, "name");
        this.shortName = name.replaceFirst("\\.[^.]+$", "");
        this.vmid = vmid;
        this.context = requireNonNull(context, "context");
        this.lvm = requireNonNull(lvm, "lvm");
        this.lvs = requireNonNull(lvs, "lvs");
        this.saferemove = saferemove;
        this.snapshotLv = Pattern.compile("snap_" + Pattern.quote(shortName) + "_(.*)\\.qcow2");
        this.sizes = lvs.sizesOf(name);
    }

    /** The LVs renamed {@code del-<name>} by {@link #remove} under saferemove, as {@code lvs} listed them. */
    List<LogicalVolume> removed() {
        return List.copyOf(removed);
    }

    @Override
    public String volname() {
        return name;
    }

    @Override
    public String layerName(String snapshot) {
        return snapshot == null ? name : "snap_" + shortName + "_" + snapshot + ".qcow2";
    }

    @Override
    public Optional<String> snapshotOf(String layerName) {
        Matcher m = snapshotLv.matcher(layerName);
        if (!m.matches() || !SNAPSHOT_NAME.matcher(m.group(1)).matches()) {
            return Optional.empty();
        }
        return Optional.of(m.group(1));
    }

    @Override
    public boolean exists(String layerName) {
        return find(layerName).isPresent();
    }

    private Optional<LogicalVolume> find(String layerName) {
        return lvm.lvs(vg).find(vg, layerName);
    }

    @Override
    public Path path(String layerName) {
        return lvs.path(layerName);
    }

    @Override
    public ImageInfo info(String layerName) {
        return context.qemuImg().info(path(layerName), VolumeFormat.QCOW2.id());
    }

    /** pve's {@code lvrename}: refused when the target exists (not checked under a dry run, where nothing moved). */
    @Override
    public void rename(String from, String to) {
        if (!context.dryRun() && exists(to)) {
            throw StorageException.failed("target volume '%s' already exists", to);
        }
        lvm.lvrename(vg, from, to);
        sizes.renamed(from, to);
    }

    @Override
    public void remove(String layerName) {
        LogicalVolume lv = find(layerName)
                .orElseThrow(() -> StorageException.failed("volume '%s/%s' does not exist", vg, layerName));
        if (!saferemove) {
            lvm.lvremove(lv, context.dryRun());
            return;
        }
        String delName = SafeRemoval.deleteName(layerName);
        if (!context.dryRun() && exists(delName)) {
            throw StorageException.failed(
                    "%s/%s from an earlier removal is still there; finish it with 'vsm cleanup' first", vg, delName);
        }
        lvm.lvrenameForRemoval(lv, delName, context.dryRun());
        removed.add(lv);
    }

    @Override
    public void createOverlay(String layerName, String backingLayer) {
        createOverlay(layerName, backingLayer, info(backingLayer).virtualSize());
    }

    /** A new LV sized for an overlay of {@code virtualSize} bytes, tagged, formatted on {@code backingLayer}. */
    @Override
    public void createOverlay(String layerName, String backingLayer, long virtualSize) {
        lvs.create(name, layerName, vmid, (virtualSize + 1023) / 1024, backingLayer);
    }

    /** An LV is sized for its own image (pve #7094): it grows before a larger child is committed into it. */
    @Override
    public boolean growsBeforeCommit() {
        return true;
    }

    @Override
    public void grow(String layerName, long virtualSize) {
        lvs.grow(layerName, virtualSize);
    }

    /** Its LV back to its measure ({@link SnapshotLvSizes#beforeWrite}). */
    @Override
    public void beforeWrite(String layerName, long virtualSize, boolean backed) {
        sizes.beforeWrite(layerName, virtualSize, backed);
    }

    /** With {@code shrink-snapshot-lvs}, its LV shrinks to its image's end ({@link SnapshotLvSizes#frozen}). */
    @Override
    public void frozen(String layerName) {
        sizes.frozen(layerName);
    }
}
