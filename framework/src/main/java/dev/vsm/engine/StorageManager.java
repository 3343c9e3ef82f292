package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.qemu.PreallocationRules;
import dev.vsm.qemu.UntrustedImage;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.NoSuchVolumeException;
import dev.vsm.spi.Operation;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The facade every command goes through (pve's {@code PVE::Storage}): resolves volume ids to
 * storages, checks that a storage is enabled on this node, activates it, takes the storage lock
 * around every change and calls the plugin. The lock is the context's
 * {@link StorageContext#locks()}, the same one plugins take for work they do after the engine
 * released it.
 */
public final class StorageManager {
    private final PluginRegistry registry;
    private final Map<String, StorageConfig> storages;
    private final Map<String, String> unloaded;
    private final StorageContext context;
    private final Map<String, Storage> opened = new HashMap<>();
    private final Set<String> activated = new java.util.HashSet<>();

    /** A row of {@code vsm status}. */
    public record StatusRow(
            String storage,
            String type,
            Set<ContentType> content,
            boolean enabled,
            boolean shared,
            StorageStatus status) {}

    /** What {@code vsm info} shows; {@code snapshots} oldest first. */
    public record VolumeDetails(
            VolumeId volid,
            VolumeName name,
            Path path,
            ImageInfo image,
            String backingVolid,
            Set<Feature> features,
            List<String> snapshots) {}

    public StorageManager(PluginRegistry registry, Map<String, StorageConfig> storages, StorageContext context) {
        this(registry, storages, Map.of(), context);
    }

    /**
     * @param unloaded the configured storages whose type is not loaded, id to type: named as such
     *                 (not as missing) when a command asks for one
     */
    public StorageManager(
            PluginRegistry registry,
            Map<String, StorageConfig> storages,
            Map<String, String> unloaded,
            StorageContext context) {
        this.registry = requireNonNull(registry, "registry");
        this.storages = new LinkedHashMap<>(requireNonNull(storages, "storages"));
        this.unloaded = Map.copyOf(unloaded);
        this.context = requireNonNull(context, "context");
    }

    public StorageContext context() {
        return context;
    }

    /** The configuration of a storage; pve's {@code storage '<id>' does not exist}. */
    public StorageConfig config(String storageId) {
        StorageConfig cfg = storages.get(storageId);
        if (cfg == null) {
            VolumeId.checkStorageId(storageId);
            if (unloaded.containsKey(storageId)) {
                throw StorageException.badInput(
                        "storage '%s' has type '%s', which is not loaded (see 'vsm plugins')",
                        storageId, VolumeId.printable(unloaded.get(storageId)));
            }
            throw StorageException.badInput("storage '%s' does not exist", storageId);
        }
        return cfg;
    }

    public Map<String, StorageConfig> storages() {
        return storages;
    }

    /** The opened storage (plugin instance) for an id. */
    public Storage storage(String storageId) {
        return opened.computeIfAbsent(storageId, id -> open(config(id)));
    }

    private Storage open(StorageConfig cfg) {
        return registry.require(cfg.type()).open(cfg, context);
    }

    public PluginSchema schema(String storageId) {
        return registry.require(config(storageId).type()).schema();
    }

    /** Whether a storage is enabled here: not disabled, and this node is among its {@code nodes} if it has any. */
    public boolean enabled(StorageConfig cfg) {
        return enabledOn(cfg, context.nodeName());
    }

    /**
     * Whether {@code cfg} is enabled on the node named {@code node}: not disabled, and its
     * {@code nodes} (if any) name that node or {@code localhost}. Needs no configuration loaded,
     * so a storage being added can be checked before the file exists.
     */
    public static boolean enabledOn(StorageConfig cfg, String node) {
        return !cfg.disabled() && (availableOn(cfg, node) || availableOn(cfg, "localhost"));
    }

    private boolean availableOnThisNode(StorageConfig cfg) {
        return availableOn(cfg, context.nodeName()) || availableOn(cfg, "localhost");
    }

    private static boolean availableOn(StorageConfig cfg, String node) {
        List<String> nodes = cfg.list(CommonProperties.NODES);
        return nodes.isEmpty() || nodes.contains(node);
    }

    /** pve's {@code storage_check_enabled}. */
    public void checkEnabled(String storageId) {
        StorageConfig cfg = config(storageId);
        if (cfg.disabled()) {
            throw StorageException.badInput("storage '%s' is disabled", storageId);
        }
        if (!availableOnThisNode(cfg)) {
            throw StorageException.badInput(
                    "storage '%s' is not available on node '%s'", storageId, context.nodeName());
        }
    }

    /** Activates a storage once per manager (pve's activation cache): again only if it failed. */
    public Storage activate(String storageId) {
        Storage s = storage(storageId);
        if (!activated.contains(storageId)) {
            s.activate(); // a storage whose activation failed is tried again on its next use
            activated.add(storageId);
        }
        return s;
    }

    /** A storage's status, activated in the same call ({@link Storage#activateAndStatus}) unless this manager already did. */
    private StorageStatus activatedStatus(String storageId) {
        Storage s = storage(storageId);
        if (activated.contains(storageId)) {
            return s.status();
        }
        StorageStatus status = s.activateAndStatus();
        activated.add(storageId);
        return status;
    }

    /** A volume of an enabled storage, its storage activated: {@link #volume}'s result. */
    public record Volume(Storage storage, VolumeName name) {}

    /**
     * The storage of a volume id, checked enabled on this node, and the volume's parsed name; the
     * storage is activated only once the name has parsed, so a bad volume id touches nothing
     * (pve activates first: an LVM-thin storage would activate its pool for a name it then refuses).
     */
    public Volume volume(VolumeId volid) {
        checkEnabled(volid.storage());
        Storage storage = storage(volid.storage());
        VolumeName name = storage.parseVolname(volid.volname());
        activate(volid.storage());
        return new Volume(storage, name);
    }

    public VolumeName parse(VolumeId volid) {
        return storage(volid.storage()).parseVolname(volid.volname());
    }

    /** Where a volume lives; nothing needs to exist and nothing is activated (pve's {@code path}). */
    public Path path(VolumeId volid) {
        Storage s = storage(volid.storage());
        return s.path(s.parseVolname(volid.volname()));
    }

    /**
     * Where a volume's snapshot's own layer lives (pve's {@code path} with a snapshot name), found
     * without activating anything ({@link Storage#snapshotPath}); the volume's path when
     * {@code snapshot} is null; null when the snapshot has no file or device of its own.
     */
    public Path path(VolumeId volid, String snapshot) {
        if (snapshot == null) {
            return path(volid);
        }
        Storage s = storage(volid.storage());
        return s.snapshotPath(s.parseVolname(volid.volname()), snapshot).orElse(null);
    }

    /** Allocates a volume after {@link Allocation}'s checks and returns its volume id. */
    public VolumeId alloc(Allocation request) {
        String format = request.checkedFormat();
        return alloc(
                request.storage(), request.vmid(), request.name(), format, request.sizeKib(), request.preallocation());
    }

    /**
     * Allocates a volume (pve's {@code vdisk_alloc}) and returns its volume id.
     *
     * @param format        null for the storage's default format (the text a user gave: refused when it is none of the storage's)
     * @param preallocation a mode asked for on this command, or null for the storage's
     */
    public VolumeId alloc(String storageId, int vmid, String name, String format, long sizeKib, String preallocation) {
        StorageConfig cfg = config(storageId);
        checkEnabled(storageId);
        PluginSchema schema = registry.require(cfg.type()).schema();
        VolumeFormat fmt = supportedFormat(storageId, format);
        checkAllocatable(cfg, schema, vmid, name, fmt);
        Storage storage;
        if (preallocation != null) {
            PreallocationRules.parse(fmt, preallocation);
            storage = open(cfg.with(CommonProperties.PREALLOCATION, preallocation));
        } else {
            storage = storage(storageId);
        }
        activate(storageId);
        AllocRequest request = AllocRequest.of(vmid, name, fmt, sizeKib);
        String volname = context.locks().withStorageLock(storageId, () -> storage.allocImage(request));
        return new VolumeId(storageId, volname);
    }

    private static final Pattern OWNED_NAME = Pattern.compile("(?:vm|base)-0*([1-9][0-9]*)-");

    /**
     * What {@code alloc} refuses beyond pve's checks, on every type: a storage whose content does
     * not hold what the volume would be listed as (images; rootdir for a subvol), as no listing
     * would show the volume; a base name, which only {@code create-base} gives (pve allocates one,
     * writable, and its clones trust it); and a name of another guest (pve's lvmthin rule, here for all types),
     * as listing by owner, disk numbering and a guest's removal go by the name. A name that
     * names no guest is left to the plugin, which refuses what it cannot parse. An import makes a
     * new volume too and is checked the same way.
     */
    public void checkAllocatable(String storageId, int vmid, String name, VolumeFormat fmt) {
        StorageConfig cfg = config(storageId);
        checkAllocatable(cfg, registry.require(cfg.type()).schema(), vmid, name, fmt);
    }

    private static void checkAllocatable(
            StorageConfig cfg, PluginSchema schema, int vmid, String name, VolumeFormat fmt) {
        ContentType listedAs = fmt == VolumeFormat.SUBVOL ? ContentType.ROOTDIR : ContentType.IMAGES;
        if (!cfg.content(schema.defaultContent()).contains(listedAs)) {
            throw StorageException.badInput(
                    "storage '%s' does not support content-type '%s' (its content is %s; add %s with 'vsm set %s --content ...')",
                    cfg.id(),
                    listedAs.id(),
                    cfg.content(schema.defaultContent()).stream()
                            .map(ContentType::id)
                            .sorted()
                            .collect(Collectors.joining(",")),
                    listedAs.id(),
                    cfg.id());
        }
        if (name != null && name.startsWith("base-")) {
            // a base made here would be writable and not immutable, and clone would trust it
            throw StorageException.badInput(
                    "illegal name '%s' - only create-base makes a base volume (allocate 'vm-%d-...' and run"
                            + " 'vsm create-base' on it)",
                    VolumeId.printable(name), vmid);
        }
        Matcher owner = name == null ? null : OWNED_NAME.matcher(name);
        if (owner != null && owner.lookingAt() && !owner.group(1).equals(Integer.toString(vmid))) {
            throw StorageException.badInput("illegal name '%s' - should be 'vm-%d-*'", VolumeId.printable(name), vmid);
        }
    }

    /**
     * Frees a volume (pve's {@code vdisk_free}); a base volume still used by linked clones is refused.
     * A backup archive's log and notes files go with it (as pve's volume deletion does: the
     * plugin removes them, vsm-files' {@code FileStorage} by descriptor). A volume that is already
     * gone is warned about and counts as freed, as in pve: cleanups after a migration free volumes
     * that may be gone.
     *
     * @return false when the volume was already gone
     */
    public boolean free(VolumeId volid) {
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        // empty when the volume was gone; else what the plugin leaves to run after the lock
        Optional<Optional<Runnable>> freed = context.locks().withStorageLock(volid.storage(), () -> {
            if (name.isBase() && !linkedClones(storage, name).isEmpty()) {
                throw StorageException.badInput("base volume '%s' is still in use by linked clones", volid.volname());
            }
            Optional<Runnable> later;
            try {
                later = storage.freeImage(name);
            } catch (NoSuchVolumeException gone) {
                context.console().warn("warning: " + gone.getMessage() + " - nothing to remove");
                return Optional.empty();
            }
            return Optional.of(later);
        });
        freed.flatMap(later -> later).ifPresent(Runnable::run);
        return freed.isPresent();
    }

    /**
     * Finishes what an interrupted earlier run left on a storage (LVM: {@code del-*} volumes whose
     * saferemove wipe did not finish): found under the storage lock, done after releasing it.
     *
     * @return what was pending (empty when nothing was)
     */
    public List<String> cleanup(String storageId) {
        checkEnabled(storageId);
        Storage storage = activate(storageId);
        Optional<PendingCleanup> pending = context.locks().withStorageLock(storageId, storage::pendingCleanup);
        pending.ifPresent(p -> p.task().run());
        return pending.map(PendingCleanup::items).orElse(List.of());
    }

    /** The linked clones of a base volume (pve's {@code volume_is_base_and_used}). */
    public List<VolumeInfo> linkedClones(Storage storage, VolumeName base) {
        List<VolumeInfo> clones = new ArrayList<>();
        for (VolumeInfo v : storage.listImages(null)) {
            VolumeName n = storage.parseVolname(VolumeId.parse(v.volid()).volname());
            if (n.isLinkedClone()
                    && base.name().equals(n.baseName())
                    && base.vmid() != null
                    && base.vmid().equals(n.baseVmid())) {
                clones.add(v);
            }
        }
        return clones;
    }

    /**
     * The volumes of one storage (pve's {@code volume_list}), sorted by volume id.
     *
     * @param content one content type, or null for all the storage holds
     * @param vmid    one owner, or null for all
     */
    public List<VolumeInfo> list(String storageId, ContentType content, Integer vmid) {
        checkEnabled(storageId);
        StorageConfig cfg = config(storageId);
        Set<ContentType> configured = cfg.content(schema(storageId).defaultContent());
        Set<ContentType> types = EnumSet.noneOf(ContentType.class);
        if (content != null) {
            if (configured.contains(content)) {
                types.add(content);
            }
        } else {
            types.addAll(configured);
        }
        types.remove(ContentType.NONE);
        if (types.isEmpty()) {
            return List.of();
        }
        return byLowerCaseVolid(activate(storageId).listVolumes(vmid, types));
    }

    /**
     * Volumes sorted by volume id in lower case, as pvesm lists them (equal keys keep the plugin's
     * order); each key computed once, not in every comparison (10,000 volumes: 14 comparisons each).
     */
    static List<VolumeInfo> byLowerCaseVolid(List<VolumeInfo> volumes) {
        record Keyed(String key, VolumeInfo volume) {}
        List<Keyed> keyed = new ArrayList<>(volumes.size());
        for (VolumeInfo v : volumes) {
            keyed.add(new Keyed(v.volid().toLowerCase(Locale.ROOT), v));
        }
        keyed.sort(Comparator.comparing(Keyed::key));
        List<VolumeInfo> sorted = new ArrayList<>(keyed.size());
        for (Keyed k : keyed) {
            sorted.add(k.volume());
        }
        return sorted;
    }

    /**
     * Every storage's state (pve's {@code storage_info} and its status index), filtered as
     * {@link StatusFilter} says (pve leaves disabled storages out of a content filter). A storage
     * that fails to activate or report is shown inactive, with a warning.
     *
     * @throws StorageException (bad input) {@code storage: No such storage.} when the filter's storage
     *                          does not exist or the other filters leave it out, as pve
     */
    public List<StatusRow> status(StatusFilter filter) {
        String onlyStorage = filter.storage();
        Set<ContentType> content = filter.content();
        boolean enabledOnly = filter.enabledOnly();
        String target = filter.target();
        if (onlyStorage != null) {
            if (!storages.containsKey(onlyStorage)) {
                throw StorageException.badInput("storage: No such storage. ('%s' does not exist)", onlyStorage);
            }
            StorageConfig only = config(onlyStorage);
            if (content != null && registry.plugin(only.type()).isPresent()) {
                boolean holds = only
                        .content(registry.require(only.type()).schema().defaultContent())
                        .stream()
                        .anyMatch(content::contains);
                if (!holds || !enabled(only)) {
                    throw StorageException.badInput(
                            "storage: No such storage. ('%s' is %s)",
                            onlyStorage,
                            enabled(only)
                                    ? "not for content "
                                            + content.stream()
                                                    .map(ContentType::id)
                                                    .sorted()
                                                    .collect(Collectors.joining(","))
                                    : "disabled here");
                }
            }
        }
        String other =
                target == null || target.equals("localhost") || target.equals(context.nodeName()) ? null : target;
        List<StatusRow> rows = new ArrayList<>();
        for (StorageConfig cfg : storages.values()) {
            Optional<StoragePlugin> plugin = registry.plugin(cfg.type());
            if (plugin.isEmpty()) {
                continue;
            }
            Set<ContentType> ct = cfg.content(plugin.get().schema().defaultContent());
            boolean enabled = enabled(cfg);
            if (content != null && (!enabled || ct.stream().noneMatch(content::contains))) {
                continue;
            }
            if (onlyStorage != null && !onlyStorage.equals(cfg.id())) {
                continue;
            }
            if (enabledOnly && cfg.disabled()) {
                continue;
            }
            if (other != null && (!cfg.shared() || !availableOnThisNode(cfg) || !availableOn(cfg, other))) {
                continue;
            }
            StorageStatus st = StorageStatus.INACTIVE;
            if (enabled) {
                try {
                    st = activatedStatus(cfg.id());
                } catch (StorageException e) {
                    context.console().warn(e.getMessage());
                } catch (RuntimeException e) {
                    // a broken plugin shows its storage inactive; it does not take the others down
                    context.console()
                            .warn(String.format("storage '%s': plugin '%s' failed: %s", cfg.id(), cfg.type(), e));
                }
            }
            rows.add(new StatusRow(cfg.id(), cfg.type(), ct, enabled, cfg.shared(), st));
        }
        rows.sort(Comparator.comparing(StatusRow::storage));
        return rows;
    }

    /** The format a storage allocates when none is asked for: its {@code format} property, else its plugin's default for it. */
    public VolumeFormat defaultFormat(String storageId) {
        StorageConfig cfg = config(storageId);
        return cfg.string(CommonProperties.FORMAT)
                .map(VolumeFormat::parse)
                .orElseGet(() -> registry.require(cfg.type()).defaultFormat(cfg));
    }

    /**
     * The formats a storage takes as configured (its plugin's {@code formats}), for
     * {@code status --format} and for the commands that choose a format themselves.
     * {@link #supportedFormat} checks against the type's, so that a format the type holds only in
     * another configuration reaches the plugin and gets its reason.
     */
    public List<VolumeFormat> formats(String storageId) {
        StorageConfig cfg = config(storageId);
        return registry.require(cfg.type()).formats(cfg);
    }

    /**
     * The format named {@code format}, or the storage's default for null, when the storage's type
     * takes it; refuses (bad input, naming the formats it takes) any other text.
     */
    public VolumeFormat supportedFormat(String storageId, String format) {
        StorageConfig cfg = config(storageId);
        PluginSchema schema = registry.require(cfg.type()).schema();
        VolumeFormat fmt = format == null
                ? defaultFormat(storageId)
                : VolumeFormat.fromId(format).orElse(null);
        if (fmt == null || !schema.formats().contains(fmt)) {
            throw StorageException.badInput(
                    "storage '%s' (type %s) does not support format '%s' (supported: %s)",
                    storageId,
                    cfg.type(),
                    fmt != null ? fmt.id() : format,
                    schema.formats().stream().map(VolumeFormat::id).collect(Collectors.joining(", ")));
        }
        return fmt;
    }

    /** The volume id of a file or device path (pve's {@code path_to_volume_id}); exit 2 when no storage owns it. */
    public VolumeId volumeIdForPath(Path path) {
        Path abs = path.toAbsolutePath().normalize();
        if (goesUp(path) && !Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            // a ".." is read lexically only where the file exists; a "." or "//" names the same file either way
            throw StorageException.badInput(
                    "path '%s' is not a volume of any storage", VolumeId.printable(path.toString()));
        }
        for (StorageConfig cfg : storages.values()) {
            if (registry.plugin(cfg.type()).isEmpty()) {
                continue;
            }
            Optional<String> volname = storage(cfg.id()).volnameForPath(abs);
            if (volname.isPresent()) {
                return new VolumeId(cfg.id(), volname.get());
            }
        }
        throw StorageException.badInput(
                "path '%s' is not a volume of any storage", VolumeId.printable(path.toString()));
    }

    private static boolean goesUp(Path path) {
        for (Path name : path) {
            if (name.toString().equals("..")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parsed name, image details, features and snapshots of a volume. An image of {@code import}
     * content is not vsm's: it is inspected ({@link UntrustedImage}) before qemu-img reads its
     * details, which would open the data files or vmdk extents it names.
     */
    public VolumeDetails info(VolumeId volid) {
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Path path = storage.path(name);
        if (name.type() == ContentType.IMPORT
                && UntrustedImage.FORMATS.contains(name.format())
                && Files.isRegularFile(path)) {
            UntrustedImage.inspect(path, name.format(), volid.toString());
        }
        ImageInfo image = storage.volumeSizeInfo(name);
        String backing = name.isLinkedClone()
                ? new VolumeId(volid.storage(), name.baseVmid() + "/" + name.baseName()).toString()
                : null;
        return new VolumeDetails(
                volid, name, path, image, backing, Capabilities.features(storage, name), storage.volumeSnapshots(name));
    }

    /** Grows a volume to {@code sizeBytes}, rounded up to whole KiB (pve's {@code volume_resize}). */
    public long resize(VolumeId volid, long sizeBytes) {
        return resize(volid, sizeBytes, false);
    }

    /**
     * Grows a volume to {@code bytes}, or by {@code bytes} when {@code relative}, rounded up to
     * whole KiB. The current size is read under the storage lock, so two relative resizes at
     * once both count.
     *
     * @return the new size in bytes
     */
    public long resize(VolumeId volid, long bytes, boolean relative) {
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Capabilities.require(storage, Operation.RESIZE);
        return context.locks().withStorageLock(volid.storage(), () -> {
            long current = storage.volumeSizeInfo(name).virtualSize();
            long wanted = relative ? Math.addExact(current, bytes) : bytes;
            long padded = (wanted + 1023) / 1024 * 1024;
            if (padded < current) {
                throw StorageException.badInput(
                        "shrinking '%s' from %d to %d bytes is not supported", volid, current, padded);
            }
            storage.volumeResize(name, padded);
            return padded;
        });
    }

    /**
     * Grows the layer of one of a volume's snapshots to {@code bytes}, or by {@code bytes} when
     * {@code relative}, rounded up to whole KiB (pve's {@code volume_resize} with a snapshot name,
     * which a manager runs before committing a larger child into the layer); the volume itself
     * when {@code snapshot} is null. The layer's size is read under the storage lock; shrinking is
     * refused.
     *
     * @return the layer's new size in bytes
     */
    public long resize(VolumeId volid, long bytes, boolean relative, String snapshot) {
        if (snapshot == null) {
            return resize(volid, bytes, relative);
        }
        SnapshotNames.check(snapshot);
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Capabilities.require(storage, Operation.RESIZE);
        return context.locks().withStorageLock(volid.storage(), () -> {
            SnapshotLayer layer = storage.volumeSnapshotInfo(name).stream()
                    .filter(l -> l.name().equals(snapshot))
                    .findFirst()
                    .orElseThrow(() -> StorageException.badInput(
                            "snapshot '%s' does not exist on '%s'", snapshot, volid.volname()));
            if (layer.virtualSize() == null) { // no layer of its own: the storage refuses
                storage.volumeResize(name, bytes, snapshot);
                return bytes;
            }
            long current = layer.virtualSize();
            long wanted = relative ? Math.addExact(current, bytes) : bytes;
            long padded = (wanted + 1023) / 1024 * 1024;
            if (padded < current) {
                throw StorageException.badInput(
                        "shrinking snapshot '%s' of '%s' from %d to %d bytes is not supported",
                        snapshot, volid, current, padded);
            }
            storage.volumeResize(name, padded, snapshot);
            return padded;
        });
    }

    /**
     * Every layer of a volume's snapshots ({@link Storage#volumeSnapshotInfo}, pve's
     * {@code volume_snapshot_info}): for a volume chain {@code current} first, then each snapshot
     * down to the oldest; empty for a volume without snapshots.
     */
    public List<SnapshotLayer> snapshotInfo(VolumeId volid) {
        Volume volume = volume(volid);
        return volume.storage().volumeSnapshotInfo(volume.name());
    }

    /** Renames a volume's snapshot under the storage lock (pve's {@code rename_snapshot}). */
    public void renameSnapshot(VolumeId volid, String from, String to) {
        SnapshotNames.check(from);
        SnapshotNames.check(to);
        if (from.equals(to)) {
            throw StorageException.badInput("snapshot '%s' would be renamed to itself", from);
        }
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        Capabilities.require(storage, Operation.SNAPSHOT);
        context.locks().withStorageLock(volid.storage(), () -> {
            storage.renameSnapshot(volume.name(), from, to);
            return null;
        });
    }

    /**
     * The snapshots that keep a volume from going back to {@code snapshot}, newest first (pve's
     * {@code volume_rollback_is_possible} with its {@code blockers}); empty when the rollback is
     * possible. Bad input when the volume has no such snapshot.
     */
    public List<String> rollbackBlockers(VolumeId volid, String snapshot) {
        SnapshotNames.check(snapshot);
        Volume volume = volume(volid);
        Capabilities.require(volume.storage(), Operation.SNAPSHOT);
        return List.copyOf(volume.storage().rollbackBlockers(volume.name(), snapshot));
    }

    /**
     * Activates a volume, or one of its snapshots (pve's {@code activate_volume}), so that a guest
     * or a program can open its path: on LVM {@code lvchange -aey} (exclusive, so that on a shared
     * volume group no other node has it), a qcow2 volume with its whole chain.
     */
    public void activateVolume(VolumeId volid, String snapshot) {
        if (snapshot != null) {
            SnapshotNames.check(snapshot);
        }
        Volume volume = volume(volid);
        volume.storage().activateVolume(volume.name(), snapshot);
    }

    /** Deactivates a volume, or one of its snapshots (pve's {@code deactivate_volume}). */
    public void deactivateVolume(VolumeId volid, String snapshot) {
        if (snapshot != null) {
            SnapshotNames.check(snapshot);
        }
        Volume volume = volume(volid);
        volume.storage().deactivateVolume(volume.name(), snapshot);
    }

    /**
     * Renames a volume under the storage lock (pve's {@code rename_volume}) and returns its new id.
     * A base volume is refused (pve renames one without linked clones, on dir failing on vsm's
     * immutable flag after making the target's directory).
     *
     * @param targetName null for the target owner's next free disk name
     */
    public VolumeId rename(VolumeId volid, int targetVmid, String targetName) {
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Capabilities.require(storage, Operation.RENAME);
        String renamed = context.locks().withStorageLock(volid.storage(), () -> {
            if (name.isBase() && !linkedClones(storage, name).isEmpty()) {
                throw StorageException.badInput("base volume '%s' is still in use by linked clones", volid.volname());
            }
            if (name.isBase()) {
                // a base is read-only (on dir immutable) and its name says it is one: give another
                // guest a disk from it with clone or copy, which leave it as it is
                throw StorageException.badInput(
                        "base volume '%s' cannot be renamed: use 'vsm clone' or 'vsm copy' to give guest %d a disk from it",
                        volid.volname(), targetVmid);
            }
            return storage.renameVolume(name, targetVmid, targetName);
        });
        return new VolumeId(volid.storage(), renamed);
    }

    /**
     * Zeroes a volume's data in place ({@code vsm wipe <volid>}). Not under the storage lock: a
     * wipe may take long, and the volume neither appears nor disappears.
     *
     * @param confirmed the caller means it (the command line's {@code --yes}); refused without,
     *                  before anything is resolved, except under dry-run
     */
    public void wipe(VolumeId volid, boolean confirmed, Integer stepMiB, String throughput) {
        if (!confirmed && !context.dryRun()) {
            throw StorageException.badInput(
                    "refusing to zero '%s' without --yes: every byte on it will be lost", volid);
        }
        Volume volume = volume(volid);
        Capabilities.require(volume.storage(), Operation.WIPE);
        volume.storage().wipeVolume(volume.name(), stepMiB, throughput);
    }

    /** Turns a volume into a base volume (pve's {@code vdisk_create_base}); returns the new volume id. */
    public VolumeId createBase(VolumeId volid) {
        Volume volume = volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Capabilities.require(storage, Operation.CREATE_BASE);
        String newName = context.locks().withStorageLock(volid.storage(), () -> storage.createBase(name));
        return new VolumeId(volid.storage(), newName);
    }

    /** A linked clone of a base volume for {@code vmid} (pve's {@code vdisk_clone}); returns the new volume id. */
    public VolumeId cloneVolume(VolumeId base, int vmid) {
        return cloneVolume(base, vmid, null);
    }

    /**
     * A linked clone for {@code vmid} of a base volume, or of a volume's snapshot when
     * {@code snapshot} is not null (pve's {@code vdisk_clone} with {@code snap}); returns the new volume id.
     */
    public VolumeId cloneVolume(VolumeId source, int vmid, String snapshot) {
        if (snapshot != null) {
            SnapshotNames.check(snapshot);
        }
        Volume volume = volume(source);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        Capabilities.require(storage, Operation.CLONE);
        String newName =
                context.locks().withStorageLock(source.storage(), () -> storage.cloneImage(name, vmid, snapshot));
        return new VolumeId(source.storage(), newName);
    }

    /**
     * Makes snapshot {@code snapshot} of a volume, under the storage lock. A volume whose storage
     * says it has no snapshot feature is refused before the plugin is asked.
     */
    public void snapshot(VolumeId volid, String snapshot) {
        onSnapshot(volid, snapshot, (storage, name) -> {
            if (!Capabilities.has(storage, Feature.SNAPSHOT, name, null)) {
                throw StorageException.badInput("snapshot feature is not available for volume '%s'", volid);
            }
            return () -> storage.volumeSnapshot(name, snapshot);
        });
    }

    /** Deletes a volume's snapshot, under the storage lock. */
    public void snapshotDelete(VolumeId volid, String snapshot) {
        onSnapshot(volid, snapshot, (storage, name) -> {
            Capabilities.require(storage, Operation.SNAPSHOT);
            return () -> storage.volumeSnapshotDelete(name, snapshot);
        });
    }

    /** Rolls a volume back to one of its snapshots, under the storage lock. */
    public void rollback(VolumeId volid, String snapshot) {
        onSnapshot(volid, snapshot, (storage, name) -> {
            Capabilities.require(storage, Operation.SNAPSHOT);
            return () -> storage.volumeSnapshotRollback(name, snapshot);
        });
    }

    /**
     * The frame of the snapshot operations: the snapshot name checked, the volume resolved, then
     * {@code change} asked (outside the lock, where it may refuse) for the work it runs under the
     * storage lock.
     */
    private void onSnapshot(VolumeId volid, String snapshot, BiFunction<Storage, VolumeName, Runnable> change) {
        SnapshotNames.check(snapshot);
        Volume volume = volume(volid);
        Runnable work = change.apply(volume.storage(), volume.name());
        context.locks().withStorageLock(volid.storage(), () -> {
            work.run();
            return null;
        });
    }
}
