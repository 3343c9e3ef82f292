package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.ChainLayers;
import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.LvsReport;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
 *
 * <p>A new overlay is made under a temporary LV name ({@code vsm-partial-<name>}) and renamed into
 * place once formatted, so that {@code current} is never an LV not yet formatted ({@code lvrename}
 * is one metadata commit). The intent record of {@link dev.vsm.files.VolumeChain} is an LV tag,
 * {@code vsm-chain:<volume's LV>:<the record's words, joined by ':'>}, in the VG's metadata: lvm2
 * commits it atomically and durably, and every node of a shared VG sees it. It is put on the one LV
 * of the chain that the operation neither removes nor replaces (a tag moves with its LV's rename):
 * {@code current} for a snapshot (it becomes the snapshot's LV), the child for a delete by rebase
 * (the snapshot's LV goes), else the named snapshot's LV.
 */
final class LvChainLayers implements ChainLayers {
    /** pve's {@code pve-configid}, at most 40 characters: what a snapshot name may be. */
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_-]{1,39}");

    /** What starts an intent record's tag; the volume's LV name and the record follow. */
    static final String INTENT_TAG = "vsm-chain:";

    /** What starts the temporary name of an overlay in the making; the layer's name follows. */
    static final String PARTIAL = "vsm-partial-";

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

    /**
     * The record is the tag {@code vsm-chain:<name>:...} of an LV of the VG (read with the
     * {@code lvs} report the other steps read); two of them are none vsm wrote.
     */
    @Override
    public Optional<String> readIntent() {
        return record(lvm.lvs(vg))
                .map(tagged -> tagged.tag().substring(intentPrefix().length()).replace(':', ' '));
    }

    /** {@code lvchange --addtag} on the LV that keeps the record through the operation (see the class comment). */
    @Override
    public void writeIntent(String line) {
        if (context.dryRun()) {
            return;
        }
        String[] words = line.split(" ");
        String keeper = switch (words[0]) {
            case "snapshot" -> name;
            case "delete-rebase" -> layerName(words[2].equals("current") ? null : words[2]);
            default -> layerName(words[1]);
        };
        lvm.addtag(vg, keeper, intentPrefix() + String.join(":", words));
    }

    /** {@code lvchange --deltag} on whichever LV carries the record now. */
    @Override
    public void clearIntent() {
        if (context.dryRun()) {
            return;
        }
        Optional<Tagged> record = record(lvm.lvs(vg));
        if (record.isPresent()) {
            lvm.deltag(vg, record.get().lv().name(), record.get().tag());
        }
    }

    private String intentPrefix() {
        return INTENT_TAG + name + ":";
    }

    /** A tag and the LV that carries it. */
    private record Tagged(LogicalVolume lv, String tag) {}

    private Optional<Tagged> record(LvsReport report) {
        List<Tagged> found = new ArrayList<>();
        for (LogicalVolume lv : report.inGroup(vg)) {
            for (String tag : lv.tags()) {
                if (tag.startsWith(intentPrefix())) {
                    found.add(new Tagged(lv, tag));
                }
            }
        }
        if (found.size() > 1) {
            throw StorageException.failed(
                    "volume '%s': more than one intent record (%s); none vsm wrote: remove them once the chain is "
                            + "checked",
                    name, found.stream().map(t -> t.lv().name() + " " + t.tag()).toList());
        }
        return found.stream().findFirst();
    }

    /** The volumes of {@code vg} with an intent record, by their LV names (for {@code vsm cleanup}). */
    static Set<String> volumesWithRecords(LvsReport report, String vg) {
        Set<String> names = new TreeSet<>();
        for (LogicalVolume lv : report.inGroup(vg)) {
            for (String tag : lv.tags()) {
                if (tag.startsWith(INTENT_TAG)) {
                    int end = tag.indexOf(':', INTENT_TAG.length());
                    names.add(tag.substring(INTENT_TAG.length(), end < 0 ? tag.length() : end));
                }
            }
        }
        return names;
    }

    /** The overlays a killed run left under their temporary names ({@link #PARTIAL}). */
    static List<LogicalVolume> partials(LvsReport report, String vg) {
        return report.inGroup(vg).stream()
                .filter(lv -> lv.name().startsWith(PARTIAL))
                .toList();
    }

    @Override
    public void createOverlay(String layerName, String backingLayer) {
        createOverlay(layerName, backingLayer, info(backingLayer).virtualSize());
    }

    /**
     * A new LV sized for an overlay of {@code virtualSize} bytes, tagged, formatted on
     * {@code backingLayer} under the name {@code vsm-partial-<layerName>}, then renamed
     * {@code layerName}; one a killed run left under that name is removed first (the storage lock is
     * held: no run is making it now). A dry run prints the steps on the final name.
     */
    @Override
    public void createOverlay(String layerName, String backingLayer, long virtualSize) {
        long sizeKib = (virtualSize + 1023) / 1024;
        if (context.dryRun()) {
            lvs.create(name, layerName, layerName, vmid, sizeKib, backingLayer);
            return;
        }
        String partial = PARTIAL + layerName;
        if (exists(partial)) {
            remove(partial);
        }
        lvs.create(name, partial, layerName, vmid, sizeKib, backingLayer);
        rename(partial, layerName);
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
