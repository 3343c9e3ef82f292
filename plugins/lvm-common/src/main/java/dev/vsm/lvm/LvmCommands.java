package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every lvm2 command line vsm runs, built as pve's LVM plugin builds it (pve-storage's LVMPlugin.pm): the
 * same programs (absolute paths), options, option order and error prefixes. Nothing here runs a
 * command; {@link Lvm} does, through the plugin's command runner.
 */
public final class LvmCommands {
    static final String VGS = "/sbin/vgs";
    static final String LVS = "/sbin/lvs";
    static final String LVCREATE = "/sbin/lvcreate";
    static final String LVREMOVE = "/sbin/lvremove";
    static final String LVRENAME = "/sbin/lvrename";
    static final String LVEXTEND = "/sbin/lvextend";
    static final String LVREDUCE = "/sbin/lvreduce";
    static final String LVCHANGE = "/sbin/lvchange";
    static final String VGSCAN = "/sbin/vgscan";
    static final String VGCHANGE = "/sbin/vgchange";

    /** The columns of {@link #vgs()}, in order; {@link VgsReport} reads them. */
    public static final List<String> VGS_COLUMNS = List.of("vg_name", "vg_size", "vg_free", "lv_count");
    /** The extra columns of {@link #vgsWithPvs()}. */
    public static final List<String> VGS_PV_COLUMNS = List.of("pv_name", "pv_size", "pv_free");
    /** The columns of {@link #lvs(String)}, in order; {@link LvsReport} reads them. */
    public static final List<String> LVS_COLUMNS = List.of(
            "vg_name",
            "lv_name",
            "lv_size",
            "lv_attr",
            "pool_lv",
            "data_percent",
            "metadata_percent",
            "snap_percent",
            "uuid",
            "tags",
            "metadata_size",
            "time",
            "lv_active");

    private static final List<String> REPORT_OPTIONS =
            List.of("--separator", ":", "--noheadings", "--units", "b", "--unbuffered", "--nosuffix");

    private LvmCommands() {}

    /** pve's {@code lvm_vgs()}: every volume group with size, free space and LV count, in bytes. */
    public static Command vgs() {
        return report(VGS, List.of(), VGS_COLUMNS, null);
    }

    /** pve's {@code lvm_vgs(1)}: as {@link #vgs()}, one line per physical volume of each group. */
    public static Command vgsWithPvs() {
        List<String> columns = new ArrayList<>(VGS_COLUMNS);
        columns.addAll(VGS_PV_COLUMNS);
        return report(VGS, List.of(), columns, null);
    }

    /**
     * pve's {@code lvm_list_volumes(vg)}: the logical volumes of one volume group, or of all when
     * {@code vg} is null, with creation times as seconds since the epoch.
     */
    public static Command lvs(String vg) {
        return report(LVS, List.of("--config", "report/time_format=\"%s\""), LVS_COLUMNS, vg);
    }

    /** The size in bytes of one logical volume (pve's raw {@code volume_size_info}). */
    public static Command lvSize(Path lvPath) {
        return report(LVS, List.of(), List.of("lv_size"), lvPath.toString())
                .withErrorPrefix("can't get size of '" + lvPath + "'");
    }

    private static Command report(String program, List<String> extra, List<String> columns, String target) {
        List<String> argv = new ArrayList<>();
        argv.add(program);
        argv.addAll(REPORT_OPTIONS);
        argv.addAll(extra);
        argv.add("--options");
        argv.add(String.join(",", columns));
        if (target != null) {
            argv.add(target);
        }
        return Command.of(argv);
    }

    /**
     * pve's {@code lvcreate}: a new LV of {@code sizeKib} KiB, activated locally, signatures wiped,
     * never auto-activated (fix #4997), with the given tags.
     */
    public static Command lvcreate(String vg, String name, long sizeKib, List<String> tags) {
        requireNonNull(vg, "vg");
        requireNonNull(name, "name");
        List<String> argv = new ArrayList<>(List.of(
                LVCREATE, "-aly", "-Wy", "--yes", "--size", sizeKib + "k", "--name", name, "--setautoactivation", "n"));
        for (String tag : tags) {
            argv.add("--addtag");
            argv.add(tag);
        }
        argv.add(vg);
        return Command.of(argv).withErrorPrefix("lvcreate '" + vg + "/" + name + "' error");
    }

    /** {@code lvremove -f <vg>/<name>}. */
    public static Command lvremove(String vg, String name) {
        return Command.of(LVREMOVE, "-f", vg + "/" + name).withErrorPrefix("lvremove '" + vg + "/" + name + "' error");
    }

    /**
     * {@code lvremove -f <vg>/<name> --select lv_uuid=<uuid>}: removes the LV only while the name
     * still holds the LV {@code lvs} reported (another node may have freed it and made a new one
     * under the same name since). When it does not, lvm2 removes nothing and still exits 0:
     * {@link Lvm#lvremove(LogicalVolume, boolean)} reads its report.
     */
    public static Command lvremove(LogicalVolume lv) {
        return identified(lvremove(lv.vg(), lv.name()), lv);
    }

    /** {@link #lvremove(LogicalVolume)} worded as a snapshot's removal. */
    public static Command lvremoveSnapshot(LogicalVolume lv) {
        return identified(lvremoveSnapshot(lv.vg(), lv.name()), lv);
    }

    private static Command identified(Command command, LogicalVolume lv) {
        if (!lv.uuid().matches("[A-Za-z0-9]{6}(-[A-Za-z0-9]{4}){5}-[A-Za-z0-9]{6}")) {
            throw StorageException.failed(
                    "lvs reported LV '%s/%s' without a UUID ('%s')", lv.vg(), lv.name(), lv.uuid());
        }
        List<String> argv = new ArrayList<>(command.argv());
        argv.add("--select");
        argv.add("lv_uuid=" + lv.uuid());
        return Command.of(argv).withErrorPrefix(command.errorPrefix());
    }

    /** {@code lvrename <vg> <old> <new>}, worded as saferemove's rename ({@code lvrename '<vg>/<old>' error}). */
    public static Command lvrenameForRemoval(String vg, String oldName, String newName) {
        return Command.of(LVRENAME, vg, oldName, newName)
                .withErrorPrefix("lvrename '" + vg + "/" + oldName + "' error");
    }

    /** {@code lvrename <vg> <old> <new>}, worded as a volume rename ({@code lvrename '<vg>/<old>' to '<new>' error}). */
    public static Command lvrename(String vg, String oldName, String newName) {
        return Command.of(LVRENAME, vg, oldName, newName)
                .withErrorPrefix("lvrename '" + vg + "/" + oldName + "' to '" + newName + "' error");
    }

    /** {@code lvextend -L <KiB>k <path>}: grow an LV to {@code sizeKib} KiB. */
    public static Command lvextend(Path lvPath, long sizeKib) {
        return Command.of(LVEXTEND, "-L", sizeKib + "k", lvPath.toString())
                .withErrorPrefix("error resizing volume '" + lvPath + "'");
    }

    /**
     * {@code lvreduce -f -L <KiB>k <path>}: shrink an LV to {@code sizeKib} KiB (vsm's, not pve's:
     * a chain's frozen layer to its image's end). {@code -f}: lvreduce asks before it shrinks.
     */
    public static Command lvreduce(Path lvPath, long sizeKib) {
        return Command.of(LVREDUCE, "-f", "-L", sizeKib + "k", lvPath.toString())
                .withErrorPrefix("error shrinking volume '" + lvPath + "'");
    }

    /** The extent size in bytes of one volume group: what an LV's size is a multiple of. */
    public static Command extentSize(String vg) {
        return report(VGS, List.of(), List.of("vg_extent_size"), vg)
                .withErrorPrefix("can't get the extent size of volume group '" + vg + "'");
    }

    /** {@code lvchange --addtag <add> --deltag <delete> <vg>/<lv>}: move a volume's owner tag after a rename. */
    public static Command retag(String vg, String lv, String addTag, String deleteTag) {
        return Command.of(LVCHANGE, "--addtag", addTag, "--deltag", deleteTag, vg + "/" + lv);
    }

    /**
     * {@code lvchange --addtag <add1> --deltag <delete1> [--addtag <add2> --deltag <delete2> ...] <vg>/<lv>}:
     * moves several tags in one call (pve's {@code rename_volume} of a qcow2 volume moves its owner
     * tag and its {@code pve-<name>} tag).
     */
    public static Command moveTags(String vg, String lv, List<String> add, List<String> delete) {
        if (add.size() != delete.size() || add.isEmpty()) {
            throw new IllegalArgumentException("tags to add " + add + " and to delete " + delete);
        }
        List<String> argv = new ArrayList<>(List.of(LVCHANGE));
        for (int i = 0; i < add.size(); i++) {
            argv.addAll(List.of("--addtag", add.get(i), "--deltag", delete.get(i)));
        }
        argv.add(vg + "/" + lv);
        return Command.of(argv).withErrorPrefix("lvchange '" + vg + "/" + lv + "' error");
    }

    /** {@code lvchange --addtag <tag> <vg>/<lv>}: a volume chain's intent record, kept in the VG's metadata. */
    public static Command addtag(String vg, String lv, String tag) {
        return Command.of(LVCHANGE, "--addtag", tag, vg + "/" + lv)
                .withErrorPrefix("lvchange '" + vg + "/" + lv + "' error");
    }

    /** {@code lvchange --deltag <tag> <vg>/<lv>}: drop a tag (an import's, once its convert succeeded). */
    public static Command deltag(String vg, String lv, String tag) {
        return Command.of(LVCHANGE, "--deltag", tag, vg + "/" + lv)
                .withErrorPrefix("lvchange '" + vg + "/" + lv + "' error");
    }

    /** {@code lvchange -aey <target>}: activate exclusively on this node (pve's {@code activate_volume}). */
    public static Command activate(ActivationTarget target) {
        return lvchange("-aey", target).withErrorPrefix("can't activate " + target.description());
    }

    /** {@code lvchange --refresh <target>}, after {@link #activate}. */
    public static Command refresh(ActivationTarget target) {
        return lvchange("--refresh", target)
                .withErrorPrefix("can't refresh " + target.description() + " for activation");
    }

    /** {@code lvchange -aln <target>} (pve's {@code deactivate_volume}). */
    public static Command deactivate(ActivationTarget target) {
        return lvchange("-aln", target).withErrorPrefix("can't deactivate " + target.description());
    }

    private static Command lvchange(String option, ActivationTarget target) {
        List<String> argv = new ArrayList<>(List.of(LVCHANGE, option));
        argv.addAll(target.args());
        return Command.of(argv);
    }

    /** {@code lvchange -aly <path>}: activate a {@code del-} LV before zeroing it (saferemove). */
    public static Command activateForZeroing(Path lvPath) {
        return Command.of(LVCHANGE, "-aly", lvPath.toString())
                .withErrorPrefix("can't activate LV '" + lvPath + "' to zero-out its data");
    }

    /** {@code lvchange --refresh <path>} after {@link #activateForZeroing}. */
    public static Command refreshForZeroing(Path lvPath) {
        return Command.of(LVCHANGE, "--refresh", lvPath.toString())
                .withErrorPrefix("can't refresh LV '" + lvPath + "' to zero-out its data");
    }

    /** {@code vgscan --ignorelockingfailure --mknodes}: look for volume groups again (pve's {@code activate_storage}). */
    public static Command vgscan() {
        return Command.of(VGSCAN, "--ignorelockingfailure", "--mknodes");
    }

    /** {@code vgchange -aln <vg>}: deactivate every LV of a group (pve's {@code deactivate_storage}). */
    public static Command deactivateGroup(String vg) {
        return Command.of(VGCHANGE, "-aln", vg).withErrorPrefix("can't deactivate VG '" + vg + "'");
    }

    // --- thin provisioning (pve's LvmThinPlugin.pm)

    /**
     * {@code lvcreate -aly -V <KiB>k --name <name> --thinpool <vg>/<pool>}: a new thin volume of
     * {@code sizeKib} KiB virtual size. No {@code --setautoactivation} here: lvcreate of Debian's
     * lvm2 does not accept it for thin volumes; {@link #disableAutoactivation} follows. No tags
     * either (as pve), but those given: an import marks its volume until it is written.
     */
    public static Command thinLvcreate(String vg, String pool, String name, long sizeKib, List<String> tags) {
        requireNonNull(pool, "pool");
        List<String> argv = new ArrayList<>(
                List.of(LVCREATE, "-aly", "-V", sizeKib + "k", "--name", name, "--thinpool", vg + "/" + pool));
        for (String tag : tags) {
            argv.add("--addtag");
            argv.add(tag);
        }
        return Command.of(argv).withErrorPrefix("lvcreate '" + vg + "/" + name + "' error");
    }

    /** {@code lvchange --setautoactivation n <vg>/<lv>}: never activate the LV at boot (fix #4997); its failure is only warned about. */
    public static Command disableAutoactivation(String vg, String lv) {
        return Command.of(LVCHANGE, "--setautoactivation", "n", vg + "/" + lv);
    }

    /**
     * {@code lvchange -ay -K <vg>/<lv>}: activate a thin pool or volume even when it is marked to
     * skip activation (base volumes and snapshots are).
     */
    public static Command activateThin(String vg, String lv) {
        return Command.of(LVCHANGE, "-ay", "-K", vg + "/" + lv)
                .withErrorPrefix("activating LV '" + vg + "/" + lv + "' failed");
    }

    /** {@code lvchange -an <vg>/<lv>}: deactivate a thin snapshot or base volume (pve's thin {@code deactivate_volume}). */
    public static Command deactivateThin(String vg, String lv) {
        return Command.of(LVCHANGE, "-an", vg + "/" + lv)
                .withErrorPrefix("deactivate_volume '" + vg + "/" + lv + "' error");
    }

    /** {@code lvcreate -n <snapshot> -pr -s <vg>/<volume>}: a read-only thin snapshot (snapshots skip activation by default). */
    public static Command thinSnapshot(String vg, String volume, String snapshotLv) {
        return Command.of(LVCREATE, "-n", snapshotLv, "-pr", "-s", vg + "/" + volume)
                .withErrorPrefix("lvcreate snapshot '" + vg + "/" + snapshotLv + "' error");
    }

    /** {@code lvremove -f <vg>/<snapshot>}, worded as a snapshot's removal. */
    public static Command lvremoveSnapshot(String vg, String snapshotLv) {
        return Command.of(LVREMOVE, "-f", vg + "/" + snapshotLv)
                .withErrorPrefix("lvremove snapshot '" + vg + "/" + snapshotLv + "' error");
    }

    /**
     * {@code lvcreate -kn -n <volume> -s <vg>/<snapshot>}: the volume again, as a writable thin
     * snapshot of its snapshot (the second half of a rollback, after {@link #lvremove}).
     */
    public static Command thinRollback(String vg, String volume, String snapshotLv) {
        return Command.of(LVCREATE, "-kn", "-n", volume, "-s", vg + "/" + snapshotLv)
                .withErrorPrefix("lvm rollback '" + vg + "/" + snapshotLv + "' error");
    }

    /**
     * {@code lvcreate -n <name> -prw -kn -s <vg>/<source>}: a linked clone, a writable thin
     * snapshot of a base volume (or of a snapshot) that does not skip activation.
     */
    public static Command thinClone(String vg, String source, String name) {
        return Command.of(LVCREATE, "-n", name, "-prw", "-kn", "-s", vg + "/" + source)
                .withErrorPrefix("clone image '" + vg + "/" + source + "' error");
    }

    /** {@code lvrename <vg> <vm-name> <base-name>}, worded as create-base's rename. */
    public static Command renameToBase(String vg, String volume, String base) {
        return Command.of(LVRENAME, vg, volume, base)
                .withErrorPrefix("lvrename '" + vg + "/" + volume + "' => '" + vg + "/" + base + "' error");
    }

    /** {@code lvchange -pr -ky <vg>/<base>}: make a base volume read-only and skip it at activation. */
    public static Command protectBase(String vg, String base) {
        return Command.of(LVCHANGE, "-pr", "-ky", vg + "/" + base);
    }
}
