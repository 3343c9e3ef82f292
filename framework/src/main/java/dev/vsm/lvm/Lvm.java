package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.CommandRunner.Result;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * lvm2 for a plugin: runs {@link LvmCommands} through the plugin's {@link CommandRunner} (reads
 * with {@code query}, changes with {@code run}, so {@code --dry-run} prints the changes) and
 * parses the reports.
 *
 * <p>What lvm2 prints on stderr while succeeding (warnings such as "Activation disabled" on
 * hosts without device-mapper) goes to the debug log ({@code vsm --verbose}), without the
 * {@link LvmStderr noise}; a failing command fails with its last stderr line, as pve words it.
 */
public final class Lvm {
    private static final Logger LOG = LoggerFactory.getLogger(Lvm.class);

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

    /** The logical volumes of one group, or of all groups when {@code vg} is null. */
    public LvsReport lvs(String vg) {
        return LvsReport.parse(query(LvmCommands.lvs(vg)));
    }

    /** The size in bytes of one LV. */
    public long lvSize(Path lvPath) {
        String out = query(LvmCommands.lvSize(lvPath)).strip();
        try {
            return Long.parseLong(out.lines().reduce((a, b) -> b).orElse("").strip());
        } catch (NumberFormatException e) {
            throw StorageException.failed("can't get size of '%s': lvs printed '%s'", lvPath, out);
        }
    }

    public void lvcreate(String vg, String name, long sizeKib, List<String> tags) {
        run(LvmCommands.lvcreate(vg, name, sizeKib, tags));
    }

    public void lvremove(String vg, String name) {
        run(LvmCommands.lvremove(vg, name));
    }

    /** Renames an LV to {@code del-<name>} (or any name) as saferemove does. */
    public void lvrenameForRemoval(String vg, String name, String newName) {
        run(LvmCommands.lvrenameForRemoval(vg, name, newName));
    }

    public void lvrename(String vg, String oldName, String newName) {
        run(LvmCommands.lvrename(vg, oldName, newName));
    }

    public void retag(String vg, String lv, String addTag, String deleteTag) {
        run(LvmCommands.retag(vg, lv, addTag, deleteTag));
    }

    public void lvextend(Path lvPath, long sizeKib) {
        run(LvmCommands.lvextend(lvPath, sizeKib));
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

    private String query(Command command) {
        return logged(command, runner.query(command));
    }

    private void run(Command command) {
        logged(command, runner.run(command));
    }

    private static String logged(Command command, Result result) {
        if (LOG.isDebugEnabled()) {
            for (String line : LvmStderr.meaningful(result.stderr())) {
                LOG.debug("{}: {}", command.argv().get(0), line);
            }
        }
        return result.stdout();
    }
}
