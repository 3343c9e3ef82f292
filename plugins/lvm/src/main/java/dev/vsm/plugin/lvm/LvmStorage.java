package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DiskNames;
import dev.vsm.files.VolumeChain;
import dev.vsm.lvm.ActivationTarget;
import dev.vsm.lvm.ImportTag;
import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.LvImports;
import dev.vsm.lvm.LvStreamFormats;
import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.LvmNames;
import dev.vsm.lvm.LvsReport;
import dev.vsm.lvm.VolumeGroup;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.NoSuchVolumeException;
import dev.vsm.spi.Operation;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One configured lvm storage (pve's {@code LVMPlugin}). Every lvm2 command goes through
 * {@link Lvm} on the context's command runner, so {@code --dry-run} prints the changes; the
 * engine holds the storage lock around {@link #allocImage} and {@link #freeImage}.
 */
final class LvmStorage implements Storage {
    /** pve's {@code tagged_only} test: a whole tag {@code pve-vm-<digits>}. */
    private static final Pattern OWNER_TAG = Pattern.compile("pve-vm-\\d+");

    private final StorageConfig config;
    private final StorageContext context;
    private final LvmOptions options;
    private final Lvm lvm;
    private final SafeRemoval safeRemoval;
    private final Qcow2Lvs qcow2Lvs;
    /** {@code snapshot-as-volume-chain}: qcow2 volumes, each a chain of LVs. */
    private final boolean chains;

    LvmStorage(StorageConfig config, StorageContext context) {
        this.config = requireNonNull(config, "config");
        this.context = requireNonNull(context, "context");
        this.options = LvmOptions.of(config);
        this.lvm = new Lvm(context.commands(), context.console());
        this.safeRemoval = new SafeRemoval(config.id(), options, context, lvm);
        this.qcow2Lvs = new Qcow2Lvs(config.id(), options.vgname(), context, lvm, options.shrinkSnapshotLvs());
        this.chains = config.bool(LvmPlugin.SNAPSHOT_AS_VOLUME_CHAIN, false);
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        VolumeName parsed = LvmVolumeNames.parse(volname);
        LvmNames.checkInGroup(options.vgname(), volname);
        return parsed;
    }

    @Override
    public Path path(VolumeName volume) {
        return lvPath(volume.name());
    }

    /**
     * The volume at {@code /dev/<vg>/<lv>} or {@code /dev/mapper/<vg>-<lv>}, so that a volume named
     * by its path is read in its own format, never by what a guest wrote into it.
     */
    @Override
    public Optional<String> volnameForPath(Path path) {
        return LvmNames.volumeAtPath(options.vgname(), path, this::parseVolname);
    }

    private Path lvPath(String lvName) {
        return Path.of("/dev", options.vgname(), lvName);
    }

    // --- storage activation and status

    /** Never fails for a missing VG (pve): looks for it again with {@code vgscan}, and only warns when that fails. */
    @Override
    public void activate() {
        lvm.findGroupOrScan(config.id(), options.vgname());
    }

    @Override
    public void deactivate() {
        lvm.deactivateGroup(options.vgname());
    }

    /** The VG's size and free space; a missing VG is an inactive storage, as in pve. */
    @Override
    public StorageStatus status() {
        return lvm.vgs()
                .group(options.vgname())
                .map(vg -> StorageStatus.of(vg.size(), vg.used(), vg.free(), true))
                .orElse(StorageStatus.INACTIVE);
    }

    // --- volume activation

    /** A qcow2 volume's chain is not activated while a chain operation is under way on it or was killed in it. */
    @Override
    public void activateVolume(VolumeName volume) {
        if (chains && volume.hasFormat(VolumeFormat.QCOW2)) {
            chainOf(volume).checkSettled();
        }
        lvm.activate(activationTarget(volume));
    }

    /** Nothing to do when the LV has no block device node (it is not active). */
    @Override
    public void deactivateVolume(VolumeName volume) {
        if (!BlockDevices.isBlockDevice(path(volume))) {
            return;
        }
        lvm.deactivate(activationTarget(volume));
    }

    /**
     * A snapshot's LV with the whole chain (pve's {@code activate_volume} with a snapshot name:
     * {@code lvchange -aey --select} over the volume's and its snapshots' LVs, exclusively), after
     * checking that the snapshot's LV exists.
     */
    @Override
    public void activateVolume(VolumeName volume, String snapshot) {
        if (snapshot != null) {
            snapshotLv(volume, snapshot);
        }
        activateVolume(volume);
    }

    /**
     * The whole chain, as pve does for a snapshot too ({@code lvchange -aln --select}); nothing
     * when the snapshot's LV has no block device node (it is not active).
     */
    @Override
    public void deactivateVolume(VolumeName volume, String snapshot) {
        if (snapshot == null) {
            deactivateVolume(volume);
            return;
        }
        if (BlockDevices.isBlockDevice(snapshotLv(volume, snapshot))) {
            lvm.deactivate(qcow2Lvs.chainTarget(volume.name()));
        }
    }

    /** The path of a snapshot's LV, named as pve's {@code path} with a snapshot name does; nothing activated. */
    @Override
    public Optional<Path> snapshotPath(VolumeName volume, String snapshot) {
        if (!volume.hasFormat(VolumeFormat.QCOW2)) {
            return Optional.empty();
        }
        return Optional.of(lvPath(layersOf(volume).layerName(snapshot)));
    }

    /** The path of an existing snapshot's LV; bad input for a raw volume (pve's words) or a snapshot without one. */
    private Path snapshotLv(VolumeName volume, String snapshot) {
        if (!volume.hasFormat(VolumeFormat.QCOW2)) {
            throw StorageException.badInput("snapshot is working with qcow2 format only");
        }
        String lv = layersOf(volume).layerName(snapshot);
        String vg = options.vgname();
        if (lvm.lvs(vg).find(vg, lv).isEmpty()) {
            throw StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, volume.volname());
        }
        return lvPath(lv);
    }

    private ActivationTarget activationTarget(VolumeName volume) {
        Path path = path(volume);
        return volume.hasFormat(VolumeFormat.QCOW2) ? qcow2Lvs.chainTarget(volume.name()) : ActivationTarget.lv(path);
    }

    // --- allocation

    /**
     * Allocates an LV as pve does, with two differences: the free-space check compares bytes with
     * bytes (pve compares bytes with KiB), and a name that is taken is refused before lvcreate runs.
     */
    @Override
    public String allocImage(AllocRequest request) {
        return alloc(request, List.of());
    }

    /** {@link #allocImage} with extra tags beside {@code pve-vm-<vmid>} (an import's mark). */
    private String alloc(AllocRequest request, List<String> extraTags) {
        VolumeFormat format = request.format();
        if (request.name() != null) {
            parseVolname(request.name());
            LvmVolumeNames.checkFormat(request.name(), format);
        }
        checkFormatSupported(format, config);

        String vg = options.vgname();
        VolumeGroup group = lvm.vgs()
                .group(vg)
                .orElseThrow(
                        () -> StorageException.failed("no such volume group '%s' (storage '%s')", vg, config.id()));
        List<String> existing = lvm.lvs(vg).names(vg);
        String name = request.name();
        if (name == null) {
            name = DiskNames.nextFree(
                    existing, config.id(), request.vmid(), format, format == VolumeFormat.QCOW2, false);
        } else if (existing.contains(name)) {
            throw StorageException.badInput("disk image '%s' already exists", lvPath(name));
        }
        if (format == VolumeFormat.QCOW2) {
            if (!extraTags.isEmpty()) {
                throw StorageException.badInput(
                        "storage '%s': importing into qcow2 volumes on lvm is not supported by vsm yet - import as raw",
                        config.id());
            }
            qcow2Lvs.create(name, name, request.vmid(), request.sizeKib(), null);
            return name;
        }
        long bytes = Math.multiplyExact(request.sizeKib(), 1024L);
        if (group.free() < bytes) {
            throw StorageException.failed(
                    "storage '%s': not enough free space in volume group '%s' (%d bytes requested, " + "%d bytes free)",
                    config.id(), vg, bytes, group.free());
        }
        List<String> tags = new ArrayList<>(List.of(Lvm.ownerTag(request.vmid())));
        tags.addAll(extraTags);
        lvm.lvcreate(vg, name, request.sizeKib(), tags);
        return name;
    }

    /** pve's {@code alloc_lvm_image} format checks: qcow2 needs volume chains. */
    private static void checkFormatSupported(VolumeFormat format, StorageConfig config) {
        if (format == VolumeFormat.QCOW2 && config.bool(LvmPlugin.SNAPSHOT_AS_VOLUME_CHAIN, false)) {
            return;
        }
        if (format == VolumeFormat.QCOW2) {
            throw StorageException.badInput("snapshot-as-volume-chain option need to be enabled to use qcow2 format");
        }
        if (format != VolumeFormat.RAW) {
            throw StorageException.badInput("unsupported format '%s'", format);
        }
    }

    // --- removal

    /**
     * Without {@code saferemove}: {@code lvremove}. With it: renames the LV {@code del-<name>} and
     * returns the task that first finishes removals an earlier run left pending, then zeroes and
     * removes this one.
     */
    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        recover(volume);
        String vg = options.vgname();
        LvsReport lvs = lvm.lvs(vg);
        LogicalVolume lv = lvs.find(vg, volume.name())
                .orElseThrow(() -> new NoSuchVolumeException(
                        String.format("volume '%s:%s' does not exist", config.id(), volume.volname())));
        List<LogicalVolume> doomed = new ArrayList<>(List.of(lv));
        if (chains && volume.hasFormat(VolumeFormat.QCOW2)) {
            doomed.addAll(snapshotLvs(volume, lvs));
        }
        return free(doomed, lvs);
    }

    /**
     * Removes the LVs {@code lvs} listed, each by its UUID ({@link #freeImage}'s work; an import's
     * leftover, {@link LvImports}, alone): {@code lvremove}, or saferemove's rename and the task
     * that zeroes and removes.
     */
    private Optional<Runnable> free(List<LogicalVolume> doomed, LvsReport lvs) {
        String vg = options.vgname();
        if (!options.saferemove()) {
            for (LogicalVolume each : doomed) {
                lvm.lvremove(each, context.dryRun());
            }
            return Optional.empty();
        }
        for (LogicalVolume each : doomed) {
            String delName = SafeRemoval.deleteName(each.name());
            if (lvs.find(vg, delName).isPresent()) {
                throw StorageException.failed(
                        "storage '%s': %s/%s from an earlier removal is still there; finish it with "
                                + "'vsm cleanup %s' and free the volume again",
                        config.id(), vg, delName, config.id());
            }
        }
        List<LogicalVolume> work = new ArrayList<>(safeRemoval.pending(lvs));
        for (LogicalVolume each : doomed) {
            safeRemoval.rename(each);
            work.add(each);
        }
        return Optional.of(safeRemoval.finish(work));
    }

    /**
     * The snapshot LVs of a qcow2 volume's chain, newest first (pve's {@code free_image}: the
     * chain activated and read, each snapshot's LV after the volume's).
     */
    private List<LogicalVolume> snapshotLvs(VolumeName volume, LvsReport lvs) {
        lvm.activate(qcow2Lvs.chainTarget(volume.name()));
        List<String> names = new ArrayList<>(chainOf(volume).snapshotLayers());
        java.util.Collections.reverse(names);
        List<LogicalVolume> found = new ArrayList<>();
        for (String name : names) {
            found.add(lvs.find(options.vgname(), name)
                    .orElseThrow(() -> StorageException.failed(
                            "volume '%s': snapshot LV '%s/%s' is missing", volume.volname(), options.vgname(), name)));
        }
        return found;
    }

    private LvChainLayers layersOf(VolumeName volume) {
        return new LvChainLayers(
                options.vgname(), volume.name(), volume.vmid(), context, lvm, qcow2Lvs, options.saferemove());
    }

    private VolumeChain chainOf(VolumeName volume) {
        return new VolumeChain(layersOf(volume), context.qemuImg(), context.console());
    }

    // --- volume chains (snapshot-as-volume-chain)

    /**
     * Runs a chain operation on a qcow2 volume as pve's LVMPlugin.pm does: the format checked
     * ({@code wrongFormat}, with the volume's format), the volume's chain activated, then the
     * operation; LVs it freed under saferemove are zeroed and removed afterwards, also when it
     * failed (pve's cleanup worker). An operation that changes the chain first finishes or undoes
     * what a killed one left ({@link VolumeChain#recover}; the caller holds the storage lock).
     */
    private <T> T onChain(VolumeName volume, String wrongFormat, Function<VolumeChain, T> operation) {
        return onChain(volume, wrongFormat, false, operation);
    }

    /** {@link #onChain(VolumeName, String, Function)} of an operation that changes the chain: recovered first. */
    private <T> T changing(VolumeName volume, String wrongFormat, Function<VolumeChain, T> operation) {
        return onChain(volume, wrongFormat, true, operation);
    }

    /** A qcow2 volume's interrupted chain operation finished or undone, if it has one (under the storage lock). */
    private void recover(VolumeName volume) {
        if (chains
                && volume.hasFormat(VolumeFormat.QCOW2)
                && layersOf(volume).readIntent().isPresent()) {
            changing(volume, "%s", chain -> null);
        }
    }

    private <T> T onChain(
            VolumeName volume, String wrongFormat, boolean recovering, Function<VolumeChain, T> operation) {
        if (!volume.hasFormat(VolumeFormat.QCOW2)) {
            throw StorageException.badInput(
                    wrongFormat, volume.volumeFormat().map(VolumeFormat::id).orElse("unknown"));
        }
        if (!chains) {
            throw StorageException.badInput(
                    "storage '%s': snapshot-as-volume-chain option need to be enabled to use qcow2 format",
                    config.id());
        }
        String vg = options.vgname();
        LvChainLayers layers = layersOf(volume);
        if (lvm.lvs(vg).find(vg, volume.name()).isEmpty()
                && !(recovering && layers.readIntent().isPresent())) {
            throw StorageException.badInput("no such volume '%s'", volume.volname());
        }
        lvm.activate(qcow2Lvs.chainTarget(volume.name()));
        T result;
        try {
            VolumeChain chain = new VolumeChain(layers, context.qemuImg(), context.console());
            if (recovering) {
                chain.recover();
            }
            result = operation.apply(chain);
        } catch (RuntimeException e) {
            if (!layers.removed().isEmpty()) {
                try {
                    safeRemoval.finish(layers.removed()).run();
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
        if (!layers.removed().isEmpty()) {
            safeRemoval.finish(layers.removed()).run();
        }
        return result;
    }

    @Override
    public void volumeSnapshot(VolumeName volume, String snapshot) {
        changing(volume, "can't snapshot '%s' volume", chain -> {
            chain.snapshot(snapshot);
            return null;
        });
    }

    @Override
    public void volumeSnapshotRollback(VolumeName volume, String snapshot) {
        changing(volume, "can't rollback snapshot for '%s' volume", chain -> {
            chain.rollback(snapshot);
            return null;
        });
    }

    @Override
    public void volumeSnapshotDelete(VolumeName volume, String snapshot) {
        changing(volume, "can't delete snapshot for '%s' volume", chain -> {
            chain.delete(snapshot);
            return null;
        });
    }

    /** The chain's snapshots, oldest first; none for a raw volume or without the option. Activates the chain to read it. */
    @Override
    public List<String> volumeSnapshots(VolumeName volume) {
        String vg = options.vgname();
        if (!chains
                || !volume.hasFormat(VolumeFormat.QCOW2)
                || lvm.lvs(vg).find(vg, volume.name()).isEmpty()) {
            return List.of();
        }
        return onChain(volume, "%s", VolumeChain::snapshots);
    }

    /**
     * Every layer of a qcow2 volume's chain (pve's {@code volume_snapshot_info}, the chain
     * activated to read it): {@code current} first, each with its LV's device, volume id
     * ({@code <storage>:<LV name>}), virtual size and creation time, the LV's {@code lv_time}
     * ({@code lvrename} keeps it, so a snapshot's is when its LV was made as {@code current}:
     * the previous snapshot's, a rollback's or the alloc's time). None for a raw volume, without
     * the option (pve) or for a volume that does not exist.
     */
    @Override
    public List<SnapshotLayer> volumeSnapshotInfo(VolumeName volume) {
        String vg = options.vgname();
        if (!chains || !volume.hasFormat(VolumeFormat.QCOW2)) {
            return List.of();
        }
        LvsReport lvs = lvm.lvs(vg); // lv_time is the same before the chain's activation and after
        if (lvs.find(vg, volume.name()).isEmpty()) {
            return List.of();
        }
        return onChain(
                volume,
                "%s",
                chain -> chain.snapshotInfo(
                        layer -> config.id() + ":" + layer.name(),
                        layer -> lvs.find(vg, layer.name())
                                .map(LogicalVolume::ctime)
                                .orElse(null)));
    }

    /**
     * Grows a snapshot's LV and image (pve's {@code volume_resize} with a snapshot name): as the
     * volume's own ({@link Qcow2Lvs#grow}), the chain activated first.
     */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes, String snapshot) {
        if (snapshot == null) {
            volumeResize(volume, sizeBytes);
            return;
        }
        changing(volume, "can't resize snapshot of '%s' volume", chain -> {
            snapshotLv(volume, snapshot);
            qcow2Lvs.grow(layersOf(volume).layerName(snapshot), sizeBytes);
            return null;
        });
    }

    /**
     * pve's {@code rename_snapshot}: {@code lvrename} of the snapshot's LV (never over an existing
     * LV), then {@code qemu-img rebase -u} of the layer above it onto the new name, which pve leaves
     * naming the old one ({@link VolumeChain#renameSnapshot}); the LV renamed back if that fails.
     */
    @Override
    public void renameSnapshot(VolumeName volume, String from, String to) {
        changing(volume, "can't rename snapshot of '%s' volume", chain -> {
            chain.renameSnapshot(from, to);
            return null;
        });
    }

    /** Only the newest snapshot can be rolled back to: the newer ones, newest first (pve's {@code volume_rollback_is_possible}). */
    @Override
    public List<String> rollbackBlockers(VolumeName volume, String snapshot) {
        return onChain(volume, "can't rollback snapshot for '%s' volume", chain -> chain.rollbackBlockers(snapshot));
    }

    /**
     * What interrupted runs left: with volume chains, every volume with an intent record recovered
     * at once (under the storage lock; saferemove's pending {@code del-} LVs finished first, as a
     * recovery's removal needs their names) and the overlays left under their temporary names
     * ({@code vsm-partial-*}) freed as {@link #freeImage} frees; then LVs of imports that did not
     * finish (removed as {@link #freeImage} removes volumes), then {@code del-} LVs whose saferemove
     * did not finish.
     */
    @Override
    public Optional<PendingCleanup> pendingCleanup() {
        List<String> items = new ArrayList<>();
        String vg = options.vgname();
        if (chains) {
            Set<String> recorded = LvChainLayers.volumesWithRecords(lvm.lvs(vg), vg);
            List<LogicalVolume> earlier = recorded.isEmpty() ? List.of() : safeRemoval.pending(lvm.lvs(vg));
            if (!earlier.isEmpty()) { // first: a recovery's removal under saferemove needs the del- name free
                safeRemoval.finish(earlier).run();
                earlier.forEach(lv -> items.add(lv.name()));
            }
            for (String name : recorded) {
                changing(parseVolname(name), "%s", chain -> null);
                items.add(name + " (interrupted chain operation)");
            }
            for (LogicalVolume partial : LvChainLayers.partials(lvm.lvs(vg), vg)) {
                if (options.saferemove()) {
                    safeRemoval.rename(partial); // zeroed with the other del- LVs below
                } else {
                    lvm.lvremove(partial, context.dryRun());
                    items.add(partial.name());
                }
            }
        }
        LvsReport lvs = lvm.lvs(vg);
        List<LogicalVolume> imports = imports().abandoned(lvs);
        List<LogicalVolume> removals = safeRemoval.pending(lvs);
        if (items.isEmpty() && imports.isEmpty() && removals.isEmpty()) {
            return Optional.empty();
        }
        imports.forEach(lv -> items.add(lv.name()));
        removals.forEach(lv -> items.add(lv.name()));
        Runnable importsTask = imports().remove(imports);
        Runnable removalsTask = safeRemoval.finish(removals);
        return Optional.of(PendingCleanup.of(items, () -> {
            importsTask.run();
            removalsTask.run();
        }));
    }

    // --- listing and sizes

    /**
     * The {@code vm-<vmid>-*} LVs of the VG: plain, mirrored or RAID (not thin), with
     * {@code tagged_only} only those tagged {@code pve-vm-<vmid>}. {@code del-*}, {@code base-*}
     * and snapshot LVs are not listed, nor LVs an import is still writing ({@link ImportTag}). A missing VG lists nothing.
     */
    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        List<VolumeInfo> images = new ArrayList<>();
        for (LogicalVolume lv : lvm.lvs(null).inGroup(options.vgname())) {
            if (!LvmVolumeNames.isVolumeName(lv.name()) || ImportTag.isImporting(lv)) {
                continue; // del-*, base-*, snap_*, other LVs; vm-* names pve's parser would die on; imports still
                // writing
            }
            if (options.taggedOnly()
                    && lv.tags().stream().noneMatch(t -> OWNER_TAG.matcher(t).matches())) {
                continue;
            }
            if ("-mMrR".indexOf(lv.type()) < 0) {
                continue;
            }
            VolumeName name = LvmVolumeNames.parse(lv.name());
            if (vmid != null && !vmid.equals(name.vmid())) {
                continue;
            }
            images.add(info(lv, name));
        }
        return images;
    }

    /** A raw LV's size is its LV size; a qcow2 one's the image's virtual size when active, else approximately the LV size. */
    private VolumeInfo info(LogicalVolume lv, VolumeName name) {
        String volid = config.id() + ":" + lv.name();
        long size = lv.size();
        boolean approximate = false;
        if (name.hasFormat(VolumeFormat.QCOW2)) {
            approximate = true;
            if (lv.active()) {
                size = context.qemuImg()
                        .info(lvPath(lv.name()), VolumeFormat.QCOW2.id())
                        .virtualSize();
                approximate = false;
            }
        }
        return VolumeInfo.builder(volid, name.format(), ContentType.IMAGES)
                .size(size)
                .approximate(approximate)
                .vmid(name.vmid())
                .ctime(lv.ctime())
                .build();
    }

    /** raw: the LV size from {@code lvs} (an LV is fully allocated); qcow2: what qemu-img says of the (active) LV. */
    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        Path path = path(volume);
        if (volume.hasFormat(VolumeFormat.QCOW2)) {
            return context.qemuImg().info(path, VolumeFormat.QCOW2.id());
        }
        long size = lvm.lvSize(path);
        return ImageInfo.builder(VolumeFormat.RAW)
                .virtualSize(size)
                .actualSize(size)
                .build();
    }

    // --- resize

    /** Resize and wipe: plain LVM has no base volumes or clones (below). */
    @Override
    public Set<Operation> operations() {
        return chains
                ? Set.of(Operation.RESIZE, Operation.WIPE, Operation.RENAME, Operation.IMPORT_IMAGE, Operation.SNAPSHOT)
                : Set.of(Operation.RESIZE, Operation.WIPE, Operation.RENAME, Operation.IMPORT_IMAGE);
    }

    /**
     * {@code lvrename}, then one {@code lvchange} moving the {@code pve-vm-<vmid>} tag to the new
     * owner; a failure to retag is only a warning, as in pve's LVMPlugin.pm.
     */
    @Override
    public String renameVolume(VolumeName volume, int targetVmid, String targetName) {
        String vg = options.vgname();
        List<String> existing = lvm.lvs(vg).names(vg);
        if (!existing.contains(volume.name())) {
            throw StorageException.badInput("storage '%s': no such volume '%s'", config.id(), volume.volname());
        }
        VolumeFormat format = LvmVolumeNames.formatOf(volume.name());
        String target = targetName;
        if (target == null) {
            target = DiskNames.nextFree(existing, config.id(), targetVmid, format, format == VolumeFormat.QCOW2, false);
        } else {
            parseVolname(target);
            LvmVolumeNames.checkFormat(target, format);
        }
        if (existing.contains(target)) {
            throw StorageException.badInput("target volume '%s' already exists", target);
        }
        if (format == VolumeFormat.QCOW2 && chains) {
            // pve #7280: the chain is activated first, so that qemu-img can read it
            boolean snapshots = changing(volume, "%s", VolumeChain::hasSnapshots);
            if (snapshots) {
                throw StorageException.badInput(
                        "can't rename volume '%s' - external snapshot exists", volume.volname());
            }
            lvm.renameChainVolume(vg, volume.name(), volume.vmid(), target, targetVmid);
            return target;
        }
        lvm.renameVolume(vg, volume.name(), volume.vmid(), target, targetVmid);
        return target;
    }

    /**
     * Activates the LV, zeroes it with the storage's {@code saferemove-stepsize} and
     * {@code saferemove_throughput} unless given, and deactivates it again. An LV that gets no
     * block device node when activated is refused rather than skipped: nothing is ever zeroed
     * through a path that is not a device (pve bug #6941).
     */
    @Override
    public void wipeVolume(VolumeName volume, Integer stepMiB, String throughput) {
        Path path = path(volume);
        if (!context.dryRun()
                && lvm.lvs(options.vgname())
                        .find(options.vgname(), volume.name())
                        .isEmpty()) {
            throw StorageException.badInput("storage '%s': no such volume '%s'", config.id(), volume.volname());
        }
        activateVolume(volume);
        if (!context.dryRun() && !BlockDevices.isBlockDevice(path)) {
            throw StorageException.failed(
                    "storage '%s': '%s' is not a block device after activation"
                            + " (no device-mapper on this host?) - not zeroing it",
                    config.id(), path);
        }
        context.zeroOut()
                .zero(
                        path,
                        stepMiB != null ? stepMiB : options.stepMiB(),
                        throughput != null ? throughput : options.throughput());
        deactivateVolume(volume);
    }

    /** {@code lvextend -L <KiB>k}; nothing when the LV is already that large (lvm2 would fail "matches existing size"). */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        if (volume.hasFormat(VolumeFormat.QCOW2)) {
            changing(volume, "%s", chain -> {
                qcow2Lvs.grow(volume.name(), sizeBytes);
                return null;
            });
            return;
        }
        Path path = path(volume);
        if (lvm.lvSize(path) >= sizeBytes) {
            return;
        }
        lvm.lvextend(path, (sizeBytes + 1023) / 1024);
    }

    // --- import and export

    @Override
    public String importImage(ImageImport request) {
        refuseQcow2Import(request.format());
        return imports().importImage(request);
    }

    /**
     * qcow2 LVs hold a formatted image: an import's convert into one is not done yet. Without volume
     * chains the answer is pve's, as for an alloc.
     */
    private void refuseQcow2Import(VolumeFormat format) {
        if (format == VolumeFormat.QCOW2) {
            checkFormatSupported(format, config);
            throw StorageException.badInput(
                    "storage '%s': importing into qcow2 volumes on lvm is not supported by vsm yet - import as raw",
                    config.id());
        }
    }

    /** The LV carries an import tag until it is written ({@link LvImports}). */
    @Override
    public Optional<String> allocWritten(AllocRequest request, java.util.function.Consumer<Path> writer) {
        refuseQcow2Import(request.format());
        return Optional.of(imports().allocWritten(request, writer));
    }

    private LvImports imports() {
        return new LvImports(
                this,
                context,
                lvm,
                options.vgname(),
                (request, tag) -> alloc(request, List.of(tag)),
                lv -> free(List.of(lv), lvm.lvs(options.vgname())));
    }

    /** Only {@code raw+size}, without snapshots (pve). */
    @Override
    public Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        return LvStreamFormats.export(volume, withSnapshots);
    }

    /** Only {@code raw+size} into raw volumes, without snapshots (pve). */
    @Override
    public Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        return LvStreamFormats.imports(volumeFormat, withSnapshots);
    }

    /**
     * With {@code saferemove} every freed LV was zeroed, so the extents a new LV gets read zeros
     * (assuming every removal on the VG went through this storage with saferemove on); without it
     * a new LV may hold a previous volume's data.
     */
    @Override
    public boolean newVolumesReadZeros() {
        return options.saferemove();
    }

    @Override
    public boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
        return LvmFeatures.has(feature, volume, snapshot);
    }
}
