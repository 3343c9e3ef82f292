package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.List;

/**
 * lvm2 for a plugin: runs {@link LvmCommands} through the plugin's {@link CommandRunner} (reads
 * with {@code query}, changes with {@code run}, so {@code --dry-run} prints the changes) and
 * parses the reports.
 *
 * <p>What lvm2 prints on stderr while succeeding (warnings such as "Activation disabled" on
 * hosts without device-mapper) is the runner's to log ({@code vsm --verbose}); a failing command
 * fails with its last stderr line, as pve words it.
 */
public final class Lvm {
    private final CommandRunner runner;
    private final Console console;

    public Lvm(CommandRunner runner, Console console) {
        this.runner = requireNonNull(runner, "runner");
        this.console = requireNonNull(console, "console");
    }

    /**
     * Every volume group (pve's {@code lvm_vgs}). As in pve a failing {@code vgs} is only warned
     * about (it exits 5 when some group cannot be read) and then reads as no volume groups.
     */
    public VgsReport vgs() {
        try {
            return VgsReport.parse(query(LvmCommands.vgs()));
        } catch (StorageException e) {
            console.warn(e.getMessage());
            return VgsReport.empty();
        }
    }

    /** As {@link #vgs()}, with each group's physical volumes (pve's {@code lvm_vgs(1)}). */
    public VgsReport vgsWithPvs() {
        try {
            return VgsReport.parse(query(LvmCommands.vgsWithPvs()));
        } catch (StorageException e) {
            console.warn(e.getMessage());
            return VgsReport.empty();
        }
    }

    /** The logical volumes of one group, or of all groups when {@code vg} is null. */
    public LvsReport lvs(String vg) {
        return LvsReport.parse(query(LvmCommands.lvs(vg)));
    }

    /** The size in bytes of one LV. */
    public long lvSize(Path lvPath) {
        return number(query(LvmCommands.lvSize(lvPath)), "can't get size of '" + lvPath + "'");
    }

    /** The one number a one-column report printed (its last line). */
    private static long number(String stdout, String what) {
        String out = stdout.strip();
        try {
            return Long.parseLong(out.lines().reduce((a, b) -> b).orElse("").strip());
        } catch (NumberFormatException e) {
            throw StorageException.failed("%s: lvm2 printed '%s'", what, out);
        }
    }

    /** The extent size of a volume group in bytes. */
    public long extentSize(String vg) {
        return number(query(LvmCommands.extentSize(vg)), "can't get the extent size of volume group '" + vg + "'");
    }

    public void lvcreate(String vg, String name, long sizeKib, List<String> tags) {
        run(LvmCommands.lvcreate(vg, name, sizeKib, tags));
    }

    public void lvremove(String vg, String name) {
        run(LvmCommands.lvremove(vg, name));
    }

    /**
     * Removes the LV {@code lvs} reported, by its name and UUID ({@link LvmCommands#lvremove(LogicalVolume)}):
     * fails when the name holds another LV now (or none), which it leaves alone.
     *
     * @param dryRun whether the command is only printed (then there is no report to read)
     */
    public void lvremove(LogicalVolume lv, boolean dryRun) {
        removed(lv, run(LvmCommands.lvremove(lv)), dryRun);
    }

    /** {@link #lvremove(LogicalVolume, boolean)} of a snapshot. */
    public void lvremoveSnapshot(LogicalVolume lv, boolean dryRun) {
        removed(lv, run(LvmCommands.lvremoveSnapshot(lv)), dryRun);
    }

    /** lvm2 says what it removed; with a selection that matched nothing it says nothing and exits 0. */
    private static void removed(LogicalVolume lv, CommandRunner.Result result, boolean dryRun) {
        if (!dryRun && !result.stdout().contains("Logical volume \"" + lv.name() + "\" successfully removed")) {
            throw StorageException.failed(
                    "lvremove '%s/%s' error: the LV of that name is no longer the one found (UUID %s; freed and "
                            + "made again meanwhile by another node?): left it alone",
                    lv.vg(), lv.name(), lv.uuid());
        }
    }

    /** Renames an LV to {@code del-<name>} (or any name) as saferemove does. */
    public void lvrenameForRemoval(String vg, String name, String newName) {
        run(LvmCommands.lvrenameForRemoval(vg, name, newName));
    }

    /**
     * saferemove's rename of the LV {@code lvs} reported to {@code newName}, kept only when the
     * renamed LV is that one ({@code lvrename} cannot select by UUID): otherwise, since another
     * node freed the volume and made a new one under the name meanwhile, that one is renamed back
     * and this fails.
     */
    public void lvrenameForRemoval(LogicalVolume lv, String newName, boolean dryRun) {
        lvrenameForRemoval(lv.vg(), lv.name(), newName);
        if (dryRun) {
            return;
        }
        String renamed =
                lvs(lv.vg()).find(lv.vg(), newName).map(LogicalVolume::uuid).orElse("");
        if (!renamed.equals(lv.uuid())) {
            lvrenameForRemoval(lv.vg(), newName, lv.name());
            throw StorageException.failed(
                    "lvrename '%s/%s' error: the LV of that name is no longer the one found (UUID %s; freed and "
                            + "made again meanwhile by another node?): left it alone",
                    lv.vg(), lv.name(), lv.uuid());
        }
    }

    public void lvrename(String vg, String oldName, String newName) {
        run(LvmCommands.lvrename(vg, oldName, newName));
    }

    public void retag(String vg, String lv, String addTag, String deleteTag) {
        run(LvmCommands.retag(vg, lv, addTag, deleteTag));
    }

    /** The tag naming an LV's owner, {@code pve-vm-<vmid>}. */
    public static String ownerTag(int vmid) {
        return "pve-vm-" + vmid;
    }

    /**
     * A volume's rename: {@code lvrename}, then, when the owner changes, one {@code lvchange}
     * moving the {@link #ownerTag} to the new owner; a failure to retag is only a warning, as in
     * pve's LVMPlugin.pm.
     */
    public void renameVolume(String vg, String lv, Integer ownerVmid, String target, int targetVmid) {
        lvrename(vg, lv, target);
        if (ownerVmid != null && ownerVmid != targetVmid) {
            try {
                retag(vg, target, ownerTag(targetVmid), ownerTag(ownerVmid));
            } catch (StorageException e) {
                console.warn("unable to update tags for '" + target + "' - " + e.getMessage());
            }
        }
    }

    /**
     * The tag pve 9 gives a qcow2 volume's LV when it makes it, {@code @pve-<name>} (lvm2 stores it
     * as {@code pve-<name>}); a snapshot's LV keeps the tag of the volume it was.
     */
    public static String volumeTag(String name) {
        return "@pve-" + name;
    }

    /**
     * A qcow2 volume's rename (pve's {@code rename_volume}): {@code lvrename}, then one
     * {@code lvchange} moving its owner tag (when the owner changes) and its {@code pve-<name>}
     * tag; a failure to retag is only a warning.
     */
    public void renameChainVolume(String vg, String lv, Integer ownerVmid, String target, int targetVmid) {
        lvrename(vg, lv, target);
        List<String> add = new java.util.ArrayList<>();
        List<String> delete = new java.util.ArrayList<>();
        if (ownerVmid != null && ownerVmid != targetVmid) {
            add.add(ownerTag(targetVmid));
            delete.add(ownerTag(ownerVmid));
        }
        add.add("pve-" + target);
        delete.add("pve-" + lv);
        try {
            run(LvmCommands.moveTags(vg, target, add, delete));
        } catch (StorageException e) {
            console.warn("unable to update tags for '" + target + "' - " + e.getMessage());
        }
    }

    public void addtag(String vg, String lv, String tag) {
        run(LvmCommands.addtag(vg, lv, tag));
    }

    public void deltag(String vg, String lv, String tag) {
        run(LvmCommands.deltag(vg, lv, tag));
    }

    public void lvextend(Path lvPath, long sizeKib) {
        run(LvmCommands.lvextend(lvPath, sizeKib));
    }

    public void lvreduce(Path lvPath, long sizeKib) {
        run(LvmCommands.lvreduce(lvPath, sizeKib));
    }

    /** pve's {@code activate_volume}: {@code lvchange -aey}, then {@code --refresh}. */
    public void activate(ActivationTarget target) {
        run(LvmCommands.activate(target));
        run(LvmCommands.refresh(target));
    }

    /** saferemove's activation before zeroing: {@code lvchange -aly}, then {@code --refresh}. */
    public void activateForZeroing(Path lvPath) {
        run(LvmCommands.activateForZeroing(lvPath));
        run(LvmCommands.refreshForZeroing(lvPath));
    }

    public void deactivate(ActivationTarget target) {
        run(LvmCommands.deactivate(target));
    }

    public void deactivateGroup(String vg) {
        run(LvmCommands.deactivateGroup(vg));
    }

    /** {@code vgscan --mknodes}: look for volume groups again. It may create device nodes, so dry-run prints it. */
    public void vgscan() {
        run(LvmCommands.vgscan());
    }

    /**
     * pve's LVM {@code activate_storage}: looks for the group, and when it is missing looks again
     * with {@code vgscan}. Never fails: a missing group makes an inactive storage, and a failing
     * vgscan is only warned about.
     */
    public void findGroupOrScan(String storageId, String vg) {
        if (vgs().group(vg).isPresent()) {
            return;
        }
        try {
            vgscan();
        } catch (StorageException e) {
            console.warn("storage '" + storageId + "': volume group '" + vg + "' not found, and vgscan failed: "
                    + e.getMessage());
        }
    }

    // --- thin provisioning

    /** A new thin volume of {@code sizeKib} KiB in {@code vg/pool} with {@code tags}, then autoactivation off (only warned when that fails). */
    public void thinLvcreate(String vg, String pool, String name, long sizeKib, List<String> tags) {
        run(LvmCommands.thinLvcreate(vg, pool, name, sizeKib, tags));
        disableAutoactivation(vg, name);
    }

    /**
     * {@code lvchange --setautoactivation n}; a failure is a warning, as in pve (older lvm2 does
     * not know the option).
     */
    public void disableAutoactivation(String vg, String lv) {
        try {
            run(LvmCommands.disableAutoactivation(vg, lv));
        } catch (StorageException e) {
            console.warn("could not set autoactivation: " + e.getMessage());
        }
    }

    /** Activates a thin pool or volume, ignoring its activation-skip flag. */
    public void activateThin(String vg, String lv) {
        run(LvmCommands.activateThin(vg, lv));
    }

    public void deactivateThin(String vg, String lv) {
        run(LvmCommands.deactivateThin(vg, lv));
    }

    public void thinSnapshot(String vg, String volume, String snapshotLv) {
        run(LvmCommands.thinSnapshot(vg, volume, snapshotLv));
    }

    /**
     * pve's thin rollback: remove the volume, make it again from its snapshot, autoactivation off.
     * The volume removed is the LV {@code lvs} reported, by UUID ({@link #lvremove(LogicalVolume, boolean)}):
     * when the name holds another LV by then, nothing is removed or made and this fails.
     */
    public void thinRollback(LogicalVolume volume, String snapshotLv, boolean dryRun) {
        lvremove(volume, dryRun);
        run(LvmCommands.thinRollback(volume.vg(), volume.name(), snapshotLv));
        disableAutoactivation(volume.vg(), volume.name());
    }

    /** A linked clone {@code name} of {@code source} (a base volume or a snapshot), autoactivation off. */
    public void thinClone(String vg, String source, String name) {
        run(LvmCommands.thinClone(vg, source, name));
        disableAutoactivation(vg, name);
    }

    /**
     * pve's thin {@code create_base} after its checks: rename, then read-only with activation
     * skip, then deactivate; failures of the last two are only warned about.
     */
    public void renameToBase(String vg, String volume, String base) {
        run(LvmCommands.renameToBase(vg, volume, base));
        try {
            run(LvmCommands.protectBase(vg, base));
        } catch (StorageException e) {
            console.warn(e.getMessage());
        }
        // lvm2 warns when properties and activation change in one call, hence a second one
        try {
            run(LvmCommands.deactivateThin(vg, base));
        } catch (StorageException e) {
            console.warn(e.getMessage());
        }
    }

    private String query(Command command) {
        return runner.query(command).stdout();
    }

    private CommandRunner.Result run(Command command) {
        return runner.run(command);
    }
}
