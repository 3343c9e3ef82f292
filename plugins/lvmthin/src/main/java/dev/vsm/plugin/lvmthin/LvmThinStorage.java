package dev.vsm.plugin.lvmthin;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DiskNames;
import dev.vsm.lvm.ImportTag;
import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.LvImports;
import dev.vsm.lvm.LvStreamFormats;
import dev.vsm.lvm.LvVolumeNames;
import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.LvmNames;
import dev.vsm.lvm.LvsReport;
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
import dev.vsm.spi.ZeroOut;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One configured lvmthin storage (pve's {@code LvmThinPlugin.pm}). Every lvm2 command
 * goes through {@link Lvm} on the context's command runner, so {@code --dry-run} prints the
 * changes; the engine holds the storage lock around every change.
 *
 * <p>Where pve lets lvm2 fail (a volume or snapshot that is not there, a name that is taken),
 * vsm refuses first with a one-line bad-input message, so that nothing is half done: a rollback
 * to a missing snapshot would otherwise remove the volume and then fail.
 */
final class LvmThinStorage implements Storage {
    private final StorageConfig config;
    private final StorageContext context;
    private final ThinOptions options;
    private final Lvm lvm;
    private final OverprovisionGuard guard;
    /** pve's activation cache: the pool was activated (or found active) by {@link #activate()}. */
    private boolean poolActivated;

    LvmThinStorage(StorageConfig config, StorageContext context) {
        this.config = requireNonNull(config, "config");
        this.context = requireNonNull(context, "context");
        this.options = ThinOptions.of(config);
        this.lvm = new Lvm(context.commands(), context.console());
        this.guard =
                new OverprovisionGuard(config.id(), options.vgname(), options.thinpool(), options.maxOverprovision());
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        VolumeName parsed = ThinVolumeNames.parse(volname);
        LvmNames.checkInGroup(vg(), volname);
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
        return LvmNames.volumeAtPath(vg(), path, this::parseVolname);
    }

    private Path lvPath(String lv) {
        return Path.of("/dev", vg(), lv);
    }

    private String vg() {
        return options.vgname();
    }

    // --- storage activation and status

    /**
     * The volume group as the lvm plugin looks for it, then the pool: it must exist, and is
     * activated ({@code lvchange -ay -K}) unless it is active.
     */
    @Override
    public void activate() {
        lvm.findGroupOrScan(config.id(), vg());
        LogicalVolume pool = lvm.lvs(null)
                .find(vg(), options.thinpool())
                .orElseThrow(() -> StorageException.failed("no such logical volume %s/%s", vg(), options.thinpool()));
        if (!pool.active()) {
            lvm.activateThin(vg(), pool.name());
        }
        poolActivated = true;
    }

    @Override
    public void deactivate() {
        lvm.deactivateGroup(vg());
    }

    /**
     * From the pool: total = its size, used = its data percent of that; inactive when the pool is
     * missing, not a thin pool, empty or not active (neither found active nor activated by this
     * storage, pve's activation cache).
     */
    @Override
    public StorageStatus status() {
        Optional<LogicalVolume> pool =
                lvm.lvs(null).find(vg(), options.thinpool()).filter(lv -> lv.isThinPool() && lv.size() > 0);
        if (pool.isEmpty() || !(pool.get().active() || poolActivated)) {
            return StorageStatus.INACTIVE;
        }
        return new ThinPoolUsage(config.id(), pool.get()).status();
    }

    // --- volume activation

    /** {@code lvchange -ay -K} unless the LV is active (under dry-run also for an LV the dry run did not create). */
    @Override
    public void activateVolume(VolumeName volume) {
        Optional<LogicalVolume> lv = lvm.lvs(vg()).find(vg(), volume.name());
        if (lv.isEmpty() && !context.dryRun()) {
            throw StorageException.failed("no such logical volume %s/%s", vg(), volume.name());
        }
        if (lv.isEmpty() || !lv.get().active()) {
            lvm.activateThin(vg(), volume.name());
        }
    }

    /** Only base volumes are deactivated ({@code lvchange -an}); other volumes stay active, as in pve. */
    @Override
    public void deactivateVolume(VolumeName volume) {
        if (volume.isBase()) {
            lvm.deactivateThin(vg(), volume.name());
        }
    }

    /**
     * A snapshot is an LV of its own ({@code snap_<volume>_<snapshot>}, made read-only and skipped
     * by autoactivation): {@code lvchange -ay -K} of it unless it is active (pve's
     * {@code activate_volume} with a snapshot name).
     */
    @Override
    public void activateVolume(VolumeName volume, String snapshot) {
        if (snapshot == null) {
            activateVolume(volume);
            return;
        }
        LogicalVolume lv = existingSnapshot(lvm.lvs(vg()), volume, snapshot);
        if (!lv.active()) {
            lvm.activateThin(vg(), lv.name());
        }
    }

    /** A snapshot's LV is deactivated ({@code lvchange -an}), as pve does; a volume as {@link #deactivateVolume(VolumeName)}. */
    @Override
    public void deactivateVolume(VolumeName volume, String snapshot) {
        if (snapshot == null) {
            deactivateVolume(volume);
            return;
        }
        LogicalVolume lv = existingSnapshot(lvm.lvs(vg()), volume, snapshot);
        lvm.deactivateThin(vg(), lv.name());
    }

    // --- snapshots' names and layers

    /** The snapshot LVs of a volume, oldest first (by creation time, then name). */
    private List<LogicalVolume> snapshotLvs(VolumeName volume) {
        return lvm.lvs(vg()).inGroup(vg()).stream()
                .filter(lv -> LvVolumeNames.isSnapshotOf(lv.name(), volume.name()))
                .sorted(java.util.Comparator.comparing(
                                (LogicalVolume lv) -> lv.ctime() == null ? Long.valueOf(0) : lv.ctime())
                        .thenComparing(LogicalVolume::name))
                .toList();
    }

    private static String snapshotName(VolumeName volume, LogicalVolume lv) {
        return lv.name().substring(LvVolumeNames.snapshotLv(volume.name(), "").length());
    }

    @Override
    public List<String> volumeSnapshots(VolumeName volume) {
        return snapshotLvs(volume).stream().map(lv -> snapshotName(volume, lv)).toList();
    }

    /**
     * Each snapshot LV, newest first, with its device, size and creation time ({@code lv_time}).
     * Thin snapshots are no chain (each one is a whole volume sharing the pool's blocks), so no
     * parent, child or volume id; pve reports none for LVM-thin either.
     */
    @Override
    public List<SnapshotLayer> volumeSnapshotInfo(VolumeName volume) {
        List<LogicalVolume> lvs = snapshotLvs(volume);
        List<SnapshotLayer> layers = new ArrayList<>();
        for (int i = lvs.size() - 1; i >= 0; i--) {
            LogicalVolume lv = lvs.get(i);
            layers.add(SnapshotLayer.builder(snapshotName(volume, lv))
                    .order(lvs.size() - i)
                    .path(lvPath(lv.name()))
                    .virtualSize(lv.size())
                    .ctime(lv.ctime())
                    .build());
        }
        return layers;
    }

    // --- allocation and removal

    /**
     * {@code lvcreate -V ... --thinpool}, then autoactivation off. No tags (as pve), no free-space
     * check (the pool is thin); the over-provisioning guard when configured.
     */
    @Override
    public String allocImage(AllocRequest request) {
        return alloc(request, List.of());
    }

    /** {@link #allocImage} with tags (pve's volumes have none; an import marks its volume until it is written). */
    private String alloc(AllocRequest request, List<String> tags) {
        if (request.format() != VolumeFormat.RAW) {
            throw StorageException.badInput("unsupported format '%s'", request.format());
        }
        String name = request.name();
        if (name != null) {
            parseVolname(name);
            if (!name.startsWith("vm-" + request.vmid() + "-")) {
                throw StorageException.badInput("illegal name '%s' - should be 'vm-%d-*'", name, request.vmid());
            }
        }
        if (lvm.vgs().group(vg()).isEmpty()) {
            throw StorageException.failed("no such volume group '%s'", vg());
        }
        LvsReport lvs = lvm.lvs(vg());
        List<String> existing = lvs.names(vg());
        if (name == null) {
            name = DiskNames.nextFree(existing, config.id(), request.vmid(), null, false, false);
        } else if (existing.contains(name)) {
            throw StorageException.badInput("disk image '%s' already exists", lvPath(name));
        }
        guard.check(lvs, "allocate " + name, Math.multiplyExact(request.sizeKib(), 1024L));
        refuseWhenFull(lvs, "allocate " + name);
        lvm.thinLvcreate(vg(), options.thinpool(), name, request.sizeKib(), tags);
        return name;
    }

    /**
     * Removes the volume's snapshots, then the volume ({@code lvremove -f}): each the LV listed,
     * by UUID, so that a vsm that stalled past its cluster lock removes nothing another node made since.
     */
    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        LvsReport lvs = lvm.lvs(vg());
        List<LogicalVolume> snapshots = lvs.inGroup(vg()).stream()
                .filter(lv -> LvVolumeNames.isSnapshotOf(lv.name(), volume.name()))
                .toList();
        Optional<LogicalVolume> lv = lvs.find(vg(), volume.name());
        if (lv.isEmpty() && snapshots.isEmpty()) {
            throw doesNotExist(volume);
        }
        for (LogicalVolume snapshot : snapshots) {
            lvm.lvremoveSnapshot(snapshot, context.dryRun());
        }
        if (lv.isPresent()) {
            return free(lv.get());
        }
        return Optional.empty();
    }

    /** Removes the thin volume {@code lvs} listed, by its UUID (an import's leftover too, {@link LvImports}). */
    private Optional<Runnable> free(LogicalVolume lv) {
        finishActivation(lv);
        lvm.lvremove(lv, context.dryRun());
        return Optional.empty();
    }

    /**
     * Before a volume is removed: {@code lvchange -ay -K} when a kill in lvm2's activation of it
     * left its device without a live table. lvremove would remove that device, then take the
     * pool for unused, fail to deactivate it and stop ("Cannot deactivate logical volume").
     */
    private void finishActivation(LogicalVolume lv) {
        if (lv.mappedWithoutLiveTable()) {
            lvm.activateThin(vg(), lv.name());
        }
    }

    // --- listing and sizes

    /**
     * The pool's thin volumes named {@code vm-}/{@code base-}; plain LVs, other pools' volumes,
     * snapshots and volumes an import is still writing ({@link ImportTag}) are not listed.
     */
    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        List<VolumeInfo> images = new ArrayList<>();
        for (LogicalVolume lv : lvm.lvs(null).inGroup(vg())) {
            if (lv.type() != 'V'
                    || !lv.poolLv().equals(options.thinpool())
                    || !ThinVolumeNames.isVolumeName(lv.name())
                    || ImportTag.isImporting(lv)) {
                continue;
            }
            VolumeName name = ThinVolumeNames.parse(lv.name());
            if (vmid != null && !vmid.equals(name.vmid())) {
                continue;
            }
            images.add(VolumeInfo.builder(config.id() + ":" + lv.name(), VolumeFormat.RAW, ContentType.IMAGES)
                    .size(lv.size())
                    .vmid(name.vmid())
                    .ctime(lv.ctime())
                    .build());
        }
        return images;
    }

    /** The thin volume's virtual size; used = its data percent of that (0 where lvm2 cannot ask the kernel). */
    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        LogicalVolume lv = existing(lvm.lvs(vg()), volume);
        return ImageInfo.builder(VolumeFormat.RAW)
                .virtualSize(lv.size())
                .actualSize((long) (lv.dataPercent() * lv.size() / 100))
                .ctime(lv.ctime())
                .build();
    }

    /** {@code lvextend -L <KiB>k}, within the over-provisioning guard; nothing when the volume is that large already. */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        LvsReport lvs = lvm.lvs(vg());
        LogicalVolume lv = existing(lvs, volume);
        if (lv.size() >= sizeBytes) {
            return;
        }
        guard.check(lvs, "grow " + volume.name(), sizeBytes - lv.size());
        lvm.lvextend(path(volume), (sizeBytes + 1023) / 1024);
    }

    // --- templates and linked clones

    /**
     * Renames {@code vm-} to {@code base-}, makes it read-only with activation skip and
     * deactivates it. Refused for a base volume and for a volume with snapshots.
     */
    @Override
    public String createBase(VolumeName volume) {
        if (volume.isBase()) {
            throw StorageException.badInput("create_base not possible with base image");
        }
        LvsReport lvs = lvm.lvs(vg());
        existing(lvs, volume);
        for (String lv : lvs.names(vg())) {
            if (LvVolumeNames.isSnapshotOf(lv, volume.name())) {
                throw StorageException.badInput("unable to create base volume - found snapshot '%s'", lv);
            }
        }
        String base = LvVolumeNames.baseName(volume.name());
        if (lvs.find(vg(), base).isPresent()) {
            throw StorageException.badInput("unable to create base volume - '%s' already exists", lvPath(base));
        }
        lvm.renameToBase(vg(), volume.name(), base);
        return base;
    }

    @Override
    public String cloneImage(VolumeName base, int vmid) {
        return cloneImage(base, vmid, null);
    }

    /**
     * A writable thin snapshot of a base volume (or of a volume's snapshot) named as the next free
     * {@code vm-<vmid>-disk-<n>}, within the over-provisioning guard; refused in a full pool.
     */
    @Override
    public String cloneImage(VolumeName volume, int vmid, String snapshot) {
        LvsReport lvs = lvm.lvs(vg());
        LogicalVolume source;
        if (snapshot != null) {
            source = existingSnapshot(lvs, volume, snapshot);
        } else {
            if (!volume.isBase()) {
                throw StorageException.badInput("clone_image only works on base images");
            }
            source = existing(lvs, volume);
        }
        String name = DiskNames.nextFree(lvs.names(vg()), config.id(), vmid, null, false, false);
        guard.check(lvs, "clone " + source.name() + " to " + name, source.size());
        refuseWhenFull(lvs, "clone " + source.name() + " to " + name);
        lvm.thinClone(vg(), source.name(), name);
        return name;
    }

    // --- snapshots

    /** {@code lvcreate -n snap_<volume>_<snapshot> -pr -s}: a read-only thin snapshot (refused in a full pool). */
    @Override
    public void volumeSnapshot(VolumeName volume, String snapshot) {
        LvsReport lvs = lvm.lvs(vg());
        existing(lvs, volume);
        String lv = LvVolumeNames.snapshotLv(volume.name(), snapshot);
        if (lvs.find(vg(), lv).isPresent()) {
            throw StorageException.badInput(
                    "snapshot '%s' of volume '%s:%s' already exists", snapshot, config.id(), volume.volname());
        }
        refuseWhenFull(lvs, "snapshot " + volume.name() + " as " + lv);
        lvm.thinSnapshot(vg(), volume.name(), lv);
    }

    /**
     * Refuses to make a thin volume (alloc, clone, snapshot) in a full pool, saying what to do: a
     * snapshot or a clone shares its origin's blocks, but the first write to either needs new ones.
     */
    private void refuseWhenFull(LvsReport lvs, String what) {
        lvs.find(vg(), options.thinpool()).ifPresent(pool -> new ThinPoolUsage(config.id(), pool).refuseWhenFull(what));
    }

    /** Removes the snapshot's LV, the one listed (by UUID, as {@link #freeImage} removes). */
    @Override
    public void volumeSnapshotDelete(VolumeName volume, String snapshot) {
        LogicalVolume lv = existingSnapshot(lvm.lvs(vg()), volume, snapshot);
        lvm.lvremoveSnapshot(lv, context.dryRun());
    }

    /**
     * Removes the volume and makes it again as a writable thin snapshot of the snapshot. The volume
     * removed is the LV listed (by UUID): a vsm that stalled past its cluster lock, or any other
     * process that freed the volume and made a new one under its name meanwhile, leaves that one.
     */
    @Override
    public void volumeSnapshotRollback(VolumeName volume, String snapshot) {
        LvsReport lvs = lvm.lvs(vg());
        LogicalVolume current = existing(lvs, volume);
        LogicalVolume lv = existingSnapshot(lvs, volume, snapshot);
        finishActivation(current);
        lvm.thinRollback(current, lv.name(), context.dryRun());
    }

    // --- rename (pve inherits the lvm plugin's)

    /**
     * {@code lvrename} to the given name or the new owner's next free disk name, then
     * {@code lvchange} moving the {@code pve-vm-<vmid>} tag when the owner changes (as pve, which
     * runs the lvm plugin's rename; a failure to retag is only a warning). Refused for base
     * volumes (no rename feature) and for volumes with snapshots, which would stay behind under
     * the old name.
     */
    @Override
    public String renameVolume(VolumeName volume, int targetVmid, String targetName) {
        if (volume.isBase()) {
            throw StorageException.badInput(
                    "rename is not available for base volume '%s:%s'", config.id(), volume.volname());
        }
        LvsReport lvs = lvm.lvs(vg());
        existing(lvs, volume);
        List<String> names = lvs.names(vg());
        for (String lv : names) {
            if (LvVolumeNames.isSnapshotOf(lv, volume.name())) {
                throw StorageException.badInput(
                        "can't rename volume '%s' - snapshot '%s' exists", volume.volname(), lv);
            }
        }
        String target = targetName;
        if (target == null) {
            target = DiskNames.nextFree(names, config.id(), targetVmid, null, false, false);
        } else {
            VolumeName parsed = parseVolname(target);
            if (parsed.isBase() || parsed.vmid() != targetVmid) {
                throw StorageException.badInput("illegal name '%s' - should be 'vm-%d-*'", target, targetVmid);
            }
        }
        if (names.contains(target)) {
            throw StorageException.badInput("target volume '%s' already exists", target);
        }
        lvm.renameVolume(vg(), volume.name(), volume.vmid(), target, targetVmid);
        return target;
    }

    @Override
    public Set<Operation> operations() {
        return Set.of(
                Operation.RESIZE,
                Operation.CREATE_BASE,
                Operation.CLONE,
                Operation.RENAME,
                Operation.SNAPSHOT,
                Operation.IMPORT_IMAGE,
                Operation.WIPE);
    }

    /**
     * Erases a thin volume in place ({@code vsm wipe}): activated, then the zero-out engine
     * discards it, as it does every thin volume: zero-filling one would provision all of it and can
     * fill the pool. Base volumes are read-only and refused.
     */
    @Override
    public void wipeVolume(VolumeName volume, Integer stepMiB, String throughput) {
        if (volume.isBase()) {
            throw StorageException.badInput(
                    "storage '%s': '%s' is a read-only base volume - not zeroing it (free it instead)",
                    config.id(), volume.volname());
        }
        if (!context.dryRun() && lvm.lvs(vg()).find(vg(), volume.name()).isEmpty()) {
            throw StorageException.badInput("storage '%s': no such volume '%s'", config.id(), volume.volname());
        }
        activateVolume(volume);
        context.zeroOut().zero(path(volume), stepMiB != null ? stepMiB : ZeroOut.DEFAULT_STEP_MIB, throughput);
    }

    // --- import and export (as the lvm plugin: pve's LvmThinPlugin inherits them)

    @Override
    public String importImage(ImageImport request) {
        return imports().importImage(request);
    }

    /** The LV carries an import tag until it is written ({@link LvImports}). */
    @Override
    public Optional<String> allocWritten(AllocRequest request, java.util.function.Consumer<Path> writer) {
        return Optional.of(imports().allocWritten(request, writer));
    }

    private LvImports imports() {
        return new LvImports(this, context, lvm, vg(), (request, tag) -> alloc(request, List.of(tag)), this::free);
    }

    /** LVs of imports that did not finish (a vsm killed while converting). */
    @Override
    public Optional<PendingCleanup> pendingCleanup() {
        List<LogicalVolume> abandoned = imports().abandoned(lvm.lvs(vg()));
        if (abandoned.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(PendingCleanup.of(
                abandoned.stream().map(LogicalVolume::name).toList(), imports().remove(abandoned)));
    }

    @Override
    public Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        return LvStreamFormats.export(volume, withSnapshots);
    }

    @Override
    public Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        return LvStreamFormats.imports(volumeFormat, withSnapshots);
    }

    /** A thin volume's blocks are unprovisioned until written: it reads zeros. */
    @Override
    public boolean newVolumesReadZeros() {
        return true;
    }

    @Override
    public boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
        return ThinFeatures.has(feature, volume, snapshot);
    }

    // --- lookups

    private LogicalVolume existing(LvsReport lvs, VolumeName volume) {
        return lvs.find(vg(), volume.name()).orElseThrow(() -> doesNotExist(volume));
    }

    private LogicalVolume existingSnapshot(LvsReport lvs, VolumeName volume, String snapshot) {
        return lvs.find(vg(), LvVolumeNames.snapshotLv(volume.name(), snapshot))
                .orElseThrow(() -> StorageException.badInput(
                        "snapshot '%s' of volume '%s:%s' does not exist", snapshot, config.id(), volume.volname()));
    }

    private StorageException doesNotExist(VolumeName volume) {
        return new NoSuchVolumeException(String.format("volume '%s:%s' does not exist", config.id(), volume.volname()));
    }
}
