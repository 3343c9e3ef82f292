package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durability: a new dir image (alloc, clone) and a new configuration file reach the disk before
 * their names do, and their names before vsm reports success, so a power cut cannot leave a name
 * on a file whose blocks were never written. A power cut cannot be staged here (no device-mapper,
 * so no dm-flakey), so the test watches the system calls instead: in the thread that renames,
 * strace must show {@code fsync} of the temporary file, then the {@code rename} (or the
 * {@code link} that gives an image its name without replacing one), then
 * {@code fsync} of the directory (for an image also of the images directory, which holds a new
 * owner directory). qemu-img syncs some images itself (qcow2, {@code preallocation=full}) but not
 * a raw {@code off} or {@code falloc} one, and never the directory.
 */
class DurabilityTest {
    private static final Pattern CALL =
            Pattern.compile("^(\\d+) +(fsync|fdatasync|rename|renameat2?|linkat|link)\\((.*)\\) += 0$");
    private static final Pattern FD_PATH = Pattern.compile("^\\d+<(.*)>$");
    private static final Pattern RENAME = Pattern.compile("^(?:[^\"]*, )?\"(.*)\", (?:[^\"]*, )?\"(.*)\"(?:, \\w+)?$");

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path store;

    @BeforeEach
    void storage() {
        HostTools.require("strace shows vsm's fsync and rename calls", "/usr/bin/strace", "/usr/bin/chattr");
        store = sandbox.resolve("store");
        vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n");
    }

    @AfterEach
    void release() {
        if (vsm != null) {
            vsm.releaseImmutable();
        }
    }

    @Test
    void allocSyncsTheImageBeforeItsNameAndTheDirectoriesAfter() throws IOException {
        String[][] cases = {{"raw", "off"}, {"raw", "falloc"}, {"qcow2", "metadata"}};
        for (int i = 0; i < cases.length; i++) {
            String[] fp = cases[i];
            String owner = Integer.toString(100 + i);
            List<Call> calls = traced("alloc", "local", owner, "", "1M", "--format", fp[0], "--preallocation", fp[1]);
            Path image = store.resolve("images/" + owner + "/vm-" + owner + "-disk-0." + fp[0]);
            assertThat(Files.isRegularFile(image)).isTrue();
            assertSyncedAround(calls, image, true);
        }
    }

    @Test
    void cloneSyncsTheImageBeforeItsNameAndTheDirectoriesAfter() throws IOException {
        vsm.run("alloc", "local", "100", "", "1M", "--format", "raw").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.raw").ok();
        List<Call> calls = traced("clone", "local:100/base-100-disk-0.raw", "101");
        assertSyncedAround(calls, store.resolve("images/101/vm-101-disk-0.qcow2"), true);
    }

    @Test
    void importSyncsTheImageBeforeItsNameAndTheDirectoriesAfter() throws IOException {
        Path source = Images.convert(Images.raw(sandbox, "source.raw", 2, 7), "qcow2", sandbox.resolve("source.qcow2"));
        List<Call> calls = traced("import", "local", "102", source.toString(), "--format", "raw");
        assertSyncedAround(calls, store.resolve("images/102/vm-102-disk-0.raw"), true);
    }

    @Test
    void aConfigurationEditSyncsTheFileBeforeItsNameAndTheDirectoryAfter() throws IOException {
        List<Call> calls = traced("set", "local", "--preallocation", "full");
        assertSyncedAround(calls, vsm.config(), false);
        assertThat(Files.readString(vsm.config())).contains("preallocation: full");
    }

    /**
     * In the renaming thread: fsync(temporary) before rename(temporary, target), fsync(directory)
     * after. A new image gets its name from its descriptor, by {@code ln -L} in a child process
     * ({@code linkat("/proc/<pid>/fd/<file>", "/proc/<pid>/fd/<dir>/<name>")}): then the order is
     * strace's, across the processes, and the file synced before is the temporary beside the target.
     */
    private static void assertSyncedAround(List<Call> calls, Path target, boolean andParent) {
        Call rename = calls.stream()
                .filter(c -> c.isRename()
                        && (c.to().equals(target.toString())
                                || (c.path().startsWith("/proc/")
                                        && c.to().startsWith("/proc/")
                                        && c.to().endsWith("/" + target.getFileName()))))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no rename to " + target + " in " + calls));
        boolean byDescriptor = rename.path().startsWith("/proc/");
        List<Call> thread = byDescriptor
                ? calls
                : calls.stream().filter(c -> c.tid().equals(rename.tid())).toList();
        int at = thread.indexOf(rename);
        List<String> before = thread.subList(0, at).stream()
                .filter(c -> !c.isRename())
                .map(Call::path)
                .toList();
        List<String> after = thread.subList(at + 1, thread.size()).stream()
                .filter(c -> !c.isRename())
                .map(Call::path)
                .toList();
        if (byDescriptor) {
            assertThat(before)
                    .as("the temporary synced before the link (strace: %s)", thread)
                    .anyMatch(p -> p.startsWith(target.getParent() + "/.") && p.contains(".vsm-tmp-"));
        } else {
            assertThat(before)
                    .as("synced before the rename (strace: %s)", thread)
                    .contains(rename.path());
        }
        assertThat(after)
                .as("synced after the rename (strace: %s)", thread)
                .contains(target.getParent().toString());
        if (andParent) {
            assertThat(after)
                    .as("synced after the rename (strace: %s)", thread)
                    .contains(target.getParent().getParent().toString());
        }
    }

    /** Runs vsm under strace; returns the fsync, fdatasync and rename calls that succeeded, in order. */
    private List<Call> traced(String... args) throws IOException {
        Path log = sandbox.resolve("strace-" + System.nanoTime() + ".log");
        List<String> argv = new ArrayList<>(List.of(
                "/usr/bin/strace",
                "-f",
                "-y",
                "-qq",
                "-o",
                log.toString(),
                "-e",
                "trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat",
                Vsm.LAUNCHER.toString()));
        argv.addAll(List.of(args));
        HostTools.Result r = HostTools.run(vsm.environment(), argv.toArray(String[]::new));
        assertThat(r.exit())
                .as("vsm %s under strace: %s", String.join(" ", args), r.err())
                .isZero();
        List<Call> calls = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            Matcher m = CALL.matcher(line);
            if (m.matches()) {
                calls.add(Call.of(m.group(1), m.group(2), m.group(3)));
            }
        }
        Files.delete(log);
        return calls;
    }

    /** One traced call: a sync of {@code path}, or a rename or link of {@code path} to {@code to}. */
    private record Call(String tid, String name, String path, String to) {
        static Call of(String tid, String name, String args) {
            if (name.startsWith("rename") || name.startsWith("link")) {
                Matcher m = RENAME.matcher(args);
                return m.matches() ? new Call(tid, name, m.group(1), m.group(2)) : new Call(tid, name, args, "");
            }
            Matcher m = FD_PATH.matcher(args);
            return new Call(tid, name, m.matches() ? m.group(1) : args, null);
        }

        boolean isRename() {
            return to != null;
        }
    }
}
