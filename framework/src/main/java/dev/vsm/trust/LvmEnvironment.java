package dev.vsm.trust;

import dev.vsm.env.Environment;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The variables of vsm's environment that lvm2 reads as a place, which every lvm2 command vsm runs
 * inherits: as root each must pass {@link FileTrust}'s rule, or vsm refuses before anything runs.
 * {@code LVM_SYSTEM_DIR} names the directory of {@code lvm.conf}, which decides which devices lvm2
 * scans and which programs it runs ({@code global/thin_check_executable}, {@code dmeventd/executable},
 * ...) and where it writes ({@code log/file}, {@code backup/backup_dir}); the directory and every
 * file and directory in it ({@code lvmlocal.conf}, {@code lvm_<tag>.conf}, {@code profile/},
 * {@code devices/system.devices}, {@code archive/}) must be root's alone. {@code LVRESIZE_FS_HELPER_PATH}
 * is a program lvm2 runs, {@code LVM_LVMPOLLD_SOCKET} and {@code LVM_LVMLOCKD_SOCKET} the daemons it
 * asks. lvm2's other variables are no place: {@code LVM_COMMAND_PROFILE} names a profile (no {@code /}
 * allowed) in the profile directory {@code lvm.conf} names, {@code LVM_VG_NAME} only completes an LV
 * named without its group (vsm names every LV as {@code <vg>/<lv>}), the rest change messages,
 * logging or output descriptors.
 */
public final class LvmEnvironment {
    /** lvm2's variables whose value is a path (those lvm2 2.03 reads from its environment and opens, runs or connects to). */
    static final List<String> PATHS =
            List.of("LVM_SYSTEM_DIR", "LVRESIZE_FS_HELPER_PATH", "LVM_LVMPOLLD_SOCKET", "LVM_LVMLOCKD_SOCKET");

    private LvmEnvironment() {}

    /** Refuses (bad input, as root only) an lvm2 variable of {@code env} that names a place another user may change. */
    public static void requireTrusted(Environment env) {
        for (String variable : PATHS) {
            String value = env.get(variable);
            if (value == null || value.isEmpty()) { // lvm2 takes an empty LVM_SYSTEM_DIR for none
                continue;
            }
            String what = "$" + variable + " '" + value + "'";
            String other = "or unset " + variable;
            FileTrust.requireTrustedAsRoot(Path.of(value), what, other);
            if (variable.equals("LVM_SYSTEM_DIR") && FileTrust.callerIsRoot()) {
                contents(Path.of(value), what, other);
            }
        }
    }

    /** Every file and directory below an lvm2 system directory must pass the rule too. */
    private static void contents(Path dir, String what, String other) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path entry : (Iterable<Path>) walk.skip(1)::iterator) {
                Optional<FileTrust.Problem> problem = FileTrust.untrusted(entry);
                if (problem.isPresent()) {
                    throw StorageException.badInput(
                            "%s refused as root: %s, %s", what, problem.get().describe(), other);
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            throw StorageException.badInput(
                    "%s refused as root: cannot check who may change it (%s) - %s", what, e.getMessage(), other);
        }
    }
}
