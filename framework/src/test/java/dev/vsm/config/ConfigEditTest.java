package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigEditTest {
    private static final String TWO_STORAGES = """
            storages:
              local:
                type: dir
                path: /var/lib/vz
                content: [images, iso]
              san:
                type: lvm
                vgname: vg_san
                saferemove: true
            """;

    @TempDir
    Path tmp;

    ConfigFiles files;
    ConfigStore store;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(tmp);
        store = files.store();
    }

    /** The edit fails with exactly {@code message} (BAD_INPUT) and the file is byte for byte as before. */
    private void assertRefused(ConfigEdit edit, String message) {
        byte[] before = Files.exists(files.file) ? files.bytes() : null;
        assertThatThrownBy(() -> store.apply(edit, ConfigHooks.NONE, false))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(message);
        if (before == null) {
            assertThat(files.file).doesNotExist();
        } else {
            assertThat(files.bytes()).isEqualTo(before);
        }
        assertNoTemporaryFiles();
    }

    private void assertNoTemporaryFiles() {
        Path dir = files.file.getParent();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                assertThat(entries.map(p -> p.getFileName().toString())).allMatch(n -> !n.contains(".tmp-"));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static Map<String, Object> values(Object... keyValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put((String) keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    // --- add

    @Test
    void addAppendsTheStorageAndWritesTheFile() {
        files.write(TWO_STORAGES);
        EditResult result =
                store.add("dir", "backups", values("path", "/mnt/backup", "content", "backup", "disable", "1"));
        assertThat(result.written()).isTrue();
        assertThat(result.changes()).containsExactly("+ write " + files.file);
        assertThat(result.before().ids()).containsExactly("local", "san");
        assertThat(result.after().ids()).containsExactly("local", "san", "backups");
        assertThat(files.text()).isEqualTo(ConfigWriter.HEADER + """
                storages:
                  local:
                    type: dir
                    path: /var/lib/vz
                    content: [images, iso]
                  san:
                    type: lvm
                    vgname: vg_san
                    saferemove: true
                  backups:
                    type: dir
                    path: /mnt/backup
                    content: [backup]
                    disable: true
                """);
        assertThat(files.load().digest()).isEqualTo(result.after().digest());
        assertNoTemporaryFiles();
    }

    @Test
    void theFirstChangeWritesTheDefaultWithItInANewFileOfMode0600() throws Exception {
        assertThat(files.file.getParent()).doesNotExist();
        EditResult result = store.add("lvm", "vmdata", values("vgname", "pve"));
        assertThat(result.before().origin()).isEqualTo(StorageConfigs.Origin.BUILT_IN_DEFAULT);
        assertThat(result.changes()).containsExactly("+ mkdir -p " + files.file.getParent(), "+ write " + files.file);
        StorageConfigs now = files.load();
        assertThat(now.origin()).isEqualTo(StorageConfigs.Origin.FILE);
        assertThat(now.ids()).containsExactly("local", "vmdata");
        assertThat(now.require("local").get("path")).contains(files.localDir.toString());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.file)))
                .isEqualTo("rw-------");
    }

    @Test
    void aMissingFileGivenWithConfigIsCreatedWithJustTheChange() {
        store = files.store(new ConfigLocation(files.file, true, files.localDir));
        store.add("lvm", "vmdata", values("vgname", "pve"));
        assertThat(files.load().ids()).containsExactly("vmdata");
    }

    @Test
    void addRefusesADuplicateId() {
        files.write(TWO_STORAGES);
        assertRefused(
                new ConfigEdit.Add("dir", "san", values("path", "/x")),
                "create storage failed: storage ID 'san' already defined");
    }

    @Test
    void addRefusesAnIdTakenByASectionOfATypeNotLoaded() {
        files.write(TWO_STORAGES + "  tank:\n    type: zfspool\n    pool: tank\n");
        assertRefused(
                new ConfigEdit.Add("dir", "tank", values("path", "/x")),
                "create storage failed: storage ID 'tank' already defined");
    }

    @Test
    void addChecksTheIdTheTypeAndEveryValueBeforeLocking() {
        files.write(TWO_STORAGES);
        assertRefused(
                new ConfigEdit.Add("dir", "x", values("path", "/x")),
                "storage ID 'x' cannot be shorter than 2 characters");
        assertRefused(
                new ConfigEdit.Add("dir", "my store", values("path", "/x")),
                "storage ID 'my store' contains illegal characters");
        assertRefused(
                new ConfigEdit.Add("zfspool", "tank", values("pool", "tank")),
                "unknown storage type 'zfspool' (no loaded plugin provides it; see 'vsm plugins')");
        assertRefused(
                new ConfigEdit.Add("dir", "new", values("path", "/x", "vgname", "pve")),
                "unexpected property 'vgname'");
        assertRefused(
                new ConfigEdit.Add("dir", "new", values("path", "/x", "type", "lvm")), "unexpected property 'type'");
        assertRefused(
                new ConfigEdit.Add("dir", "new", values("content", "iso")), "missing value for required option 'path'");
        assertRefused(
                new ConfigEdit.Add("dir", "new", values("path", "/x", "preallocation", "fast")),
                "preallocation: value 'fast' does not have a value in the enumeration 'off, metadata, falloc, full'");
        assertRefused(
                new ConfigEdit.Add("lvm", "new", values("vgname", "vg", "content", "iso")),
                "content: storage does not support content type 'iso'");
        assertRefused(
                new ConfigEdit.Add("lvm", "new", values("vgname", "vg", "saferemove", "perhaps", "shared", 3L)),
                "saferemove: type check ('boolean') failed - got 'perhaps' (and 1 more problem)");
    }

    @Test
    void addTakesTypedJavaValues() {
        files.write(TWO_STORAGES);
        store.add(
                "lvm",
                "fast",
                values(
                        "vgname",
                        "vg_fast",
                        "saferemove",
                        Boolean.TRUE,
                        "saferemove-stepsize",
                        8,
                        "content",
                        List.of("images", "rootdir"),
                        "bwlimit-ratio",
                        2.5));
        assertThat(files.load().require("fast").properties())
                .isEqualTo(Map.of(
                        "vgname",
                        "vg_fast",
                        "saferemove",
                        true,
                        "saferemove-stepsize",
                        8L,
                        "content",
                        List.of("images", "rootdir"),
                        "bwlimit-ratio",
                        2.5));
    }

    // --- update

    @Test
    void updateSetsAndDeletesProperties() {
        files.write(TWO_STORAGES);
        EditResult result =
                store.update("san", values("saferemove-stepsize", "16", "nodes", "n1,n2"), List.of("saferemove"), null);
        assertThat(result.written()).isTrue();
        StorageConfig san = files.load().require("san");
        assertThat(san.properties())
                .isEqualTo(Map.of("vgname", "vg_san", "saferemove-stepsize", 16L, "nodes", List.of("n1", "n2")));
    }

    @Test
    void updateChecksTheDigest() {
        files.write(TWO_STORAGES);
        String digest = files.load().digest();
        assertRefused(
                new ConfigEdit.Update("san", values("saferemove", "0"), List.of(), "0".repeat(40)),
                "update storage failed: detected modified configuration - file changed by other user? Try again.");
        store.update("san", values("saferemove", "0"), List.of(), digest.toUpperCase(Locale.ROOT));
        assertThat(files.load().require("san").get("saferemove")).contains(false);
        // the digest is now stale
        assertRefused(
                new ConfigEdit.Update("san", values("saferemove", "1"), List.of(), digest),
                "update storage failed: detected modified configuration - file changed by other user? Try again.");
    }

    @Test
    void updateRefusals() {
        files.write(TWO_STORAGES + "  tank:\n    type: zfspool\n    pool: tank\n");
        assertRefused(
                new ConfigEdit.Update("nope", values("disable", "1"), List.of(), null),
                "update storage failed: storage 'nope' does not exist");
        assertRefused(
                new ConfigEdit.Update("tank", values("disable", "1"), List.of(), null),
                "update storage failed: storage 'tank' has type 'zfspool', which is not loaded (see 'vsm plugins')");
        assertRefused(
                new ConfigEdit.Update("local", values("path", "/srv"), List.of(), null),
                "update storage failed: can't change value of fixed parameter 'path'");
        assertRefused(
                new ConfigEdit.Update("local", values("type", "lvm"), List.of(), null),
                "update storage failed: can't change value of fixed parameter 'type'");
        assertRefused(
                new ConfigEdit.Update("local", values("vgname", "pve"), List.of(), null),
                "update storage failed: unexpected property 'vgname'");
        assertRefused(
                new ConfigEdit.Update("local", values("format", "qed"), List.of(), null),
                "update storage failed: format: value 'qed' does not have a value in the enumeration 'raw, qcow2, vmdk, subvol'");
        assertRefused(
                new ConfigEdit.Update("local", values("content", "none,iso"), List.of(), null),
                "update storage failed: content: unable to combine 'none' with other content types");
    }

    @Test
    void deleteRefusals() {
        files.write(TWO_STORAGES);
        assertRefused(
                new ConfigEdit.Update("local", Map.of(), List.of("vgname"), null),
                "update storage failed: no such option 'vgname'");
        assertRefused(
                new ConfigEdit.Update("local", Map.of(), List.of("type"), null),
                "update storage failed: no such option 'type'");
        assertRefused(
                new ConfigEdit.Update("local", Map.of(), List.of("path"), null),
                "update storage failed: unable to delete required option 'path'");
        assertRefused(
                new ConfigEdit.Update("local", Map.of(), List.of("snapshot-as-volume-chain"), null),
                "update storage failed: unable to delete fixed option 'snapshot-as-volume-chain'");
        assertRefused(
                new ConfigEdit.Update("local", values("content", "iso"), List.of("content"), null),
                "update storage failed: cannot set and delete property 'content' at the same time!");
    }

    @Test
    void deletingAnOptionThatIsNotSetChangesNothingAndWritesNothing() throws Exception {
        files.write(TWO_STORAGES);
        FileTime mtime = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(files.file, mtime);
        EditResult result = store.update("local", Map.of(), List.of("format,nodes"), null);
        assertThat(result.written()).isFalse();
        assertThat(result.changes()).isEmpty();
        assertThat(files.text()).isEqualTo(TWO_STORAGES);
        assertThat(Files.getLastModifiedTime(files.file)).isEqualTo(mtime);
    }

    @Test
    void deleteAcceptsCommaSeparatedLists() {
        files.write(TWO_STORAGES);
        store.update("local", values("format", "qcow2", "disable", true), List.of(), null);
        store.update("local", Map.of(), List.of("format, disable", "content"), null);
        assertThat(files.load().require("local").properties()).isEqualTo(Map.of("path", "/var/lib/vz"));
    }

    // --- remove

    @Test
    void removeDropsTheSection() {
        files.write(TWO_STORAGES);
        store.remove("local");
        assertThat(files.load().ids()).containsExactly("san");
        assertRefused(new ConfigEdit.Remove("local"), "delete storage failed: storage 'local' does not exist");
    }

    @Test
    void removeRefusesAStorageThatIsTheBaseOfAnother() {
        files.write(TWO_STORAGES + "  onlun:\n    type: lvm\n    vgname: vg_lun\n    base: local:0.0.0.scsi-lun1\n");
        assertRefused(
                new ConfigEdit.Remove("local"),
                "delete storage failed: can't remove storage - storage is used as base of another storage");
        store.remove("onlun");
        store.remove("local");
        assertThat(files.load().ids()).containsExactly("san");
    }

    @Test
    void removeWorksOnSectionsOfTypesNotLoaded() {
        files.write(TWO_STORAGES + "  tank:\n    type: zfspool\n    pool: tank\n");
        List<String> calls = new ArrayList<>();
        store.apply(new ConfigEdit.Remove("tank"), recording(calls), false);
        assertThat(files.load().ids()).containsExactly("local", "san");
        assertThat(calls).isEmpty();
    }

    // --- sections of types not loaded, reserved keys

    @Test
    void sectionsOfTypesNotLoadedAreWrittenBackUntouched() {
        String tank = """
                  tank:
                    type: zfspool
                    pool: 'tank/vm'
                    sparse: yes
                    blocksize: 0x10
                    options: {compression: "on", "x y": [1, ~]}
                    nodes:
                    - n1
                    - n2
                """;
        files.write(TWO_STORAGES + tank);
        store.update("san", values("saferemove", false), List.of(), null);
        assertThat(files.text()).contains(tank);
        assertThat(files.load().unloaded()).containsOnlyKeys("tank");
    }

    @Test
    void reservedTopLevelKeysAreKeptInPlace() {
        files.write("cluster:\n  name: lab\n  nodes: [a1, b1]\n" + TWO_STORAGES + "plugin-dir: /opt/vsm/plugins\n");
        store.remove("san");
        assertThat(files.text())
                .startsWith(ConfigWriter.HEADER + "cluster:\n  name: lab\n  nodes: [a1, b1]\nstorages:\n")
                .endsWith("plugin-dir: /opt/vsm/plugins\n");
    }

    // --- a broken file blocks edits too

    @Test
    void anInvalidFileIsNotEditedAndTheErrorNamesIt() {
        files.write("storages:\n  local:\n    type: dir\n    path: /srv\n    preallocation: fast\n");
        assertRefused(
                new ConfigEdit.Update("local", values("disable", "1"), List.of(), null),
                "update storage failed: " + files.file
                        + ":5: storage 'local': preallocation: value 'fast' does not have a value in the enumeration 'off, metadata, falloc, full'");
        assertRefused(
                new ConfigEdit.Add("dir", "other", values("path", "/other")),
                "create storage failed: " + files.file
                        + ":5: storage 'local': preallocation: value 'fast' does not have a value in the enumeration 'off, metadata, falloc, full'");
    }

    // --- hooks

    private ConfigHooks recording(List<String> calls) {
        ConfigFiles f = files;
        return new ConfigHooks() {
            @Override
            public void onAdd(StorageConfig added) {
                calls.add("add " + added.id() + " locked=" + f.locks().isHeldByCurrentThread(ConfigStore.LOCK));
            }

            @Override
            public void onUpdate(StorageConfig before, StorageConfig after) {
                calls.add("update " + before.properties() + " -> " + after.properties());
            }

            @Override
            public void onDelete(StorageConfig removed) {
                calls.add("delete " + removed.id());
            }
        };
    }

    @Test
    void hooksRunUnderTheLockBeforeTheWrite() {
        files.write(TWO_STORAGES);
        List<String> calls = new ArrayList<>();
        store.apply(new ConfigEdit.Add("lvm", "fast", values("vgname", "vg")), recording(calls), false);
        store.apply(
                new ConfigEdit.Update("fast", values("saferemove", "yes"), List.of(), null), recording(calls), false);
        store.apply(new ConfigEdit.Remove("fast"), recording(calls), false);
        assertThat(calls)
                .containsExactly(
                        "add fast locked=true", "update {vgname=vg} -> {vgname=vg, saferemove=true}", "delete fast");
    }

    @Test
    void aHookThatRefusesStopsTheWrite() {
        files.write(TWO_STORAGES);
        ConfigHooks refusing = new ConfigHooks() {
            @Override
            public void onAdd(StorageConfig added) {
                throw StorageException.failed(
                        "no such volume group '%s'", added.string("vgname").orElseThrow());
            }
        };
        byte[] before = files.bytes();
        assertThatThrownBy(
                        () -> store.apply(new ConfigEdit.Add("lvm", "fast", values("vgname", "vg_x")), refusing, false))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("create storage failed: no such volume group 'vg_x'");
        assertThat(files.bytes()).isEqualTo(before);
    }

    @Test
    void anEditWaitsForTheLockAndGivesUpWithPvesMessage() throws Exception {
        files.write(TWO_STORAGES);
        byte[] before = files.bytes();
        ConfigStore impatient =
                new ConfigStore(files.location(), TestSchemas.LOOKUP, files.locks(), Duration.ofMillis(200));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> files.locks().runWithLock(ConfigStore.LOCK, Duration.ofSeconds(1), () -> {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        holder.start();
        held.await();
        try {
            assertThatThrownBy(() -> impatient.remove("san"))
                    .isInstanceOfSatisfying(
                            StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                    .hasMessage("delete storage failed: can't lock file '"
                            + files.lockDir.resolve("storage-config.lock") + "' - got timeout");
        } finally {
            release.countDown();
            holder.join();
        }
        assertThat(files.bytes()).isEqualTo(before);
        assertThat(files.progress.toString(StandardCharsets.UTF_8)).isEqualTo("trying to acquire lock... failed\n");
    }

    // --- dry run

    @Test
    void aDryRunWritesNothingAndSaysWhatItWouldWrite() {
        List<String> calls = new ArrayList<>();
        EditResult result =
                store.apply(new ConfigEdit.Add("lvm", "fast", values("vgname", "vg")), recording(calls), true);
        assertThat(result.written()).isFalse();
        assertThat(result.changes()).containsExactly("+ mkdir -p " + files.file.getParent(), "+ write " + files.file);
        assertThat(result.after().ids()).containsExactly("local", "fast");
        assertThat(calls).containsExactly("add fast locked=false");
        assertThat(files.file.getParent()).doesNotExist();
    }

    @Test
    void dryRunLinesQuoteForTheShell() {
        assertThat(DryRunLines.line("write", "/etc/vsm/storage.yaml")).isEqualTo("+ write /etc/vsm/storage.yaml");
        assertThat(DryRunLines.line("write", "/tmp/my dir/it's.yaml")).isEqualTo("+ write '/tmp/my dir/it'\\''s.yaml'");
    }

    // --- how the file is replaced

    @Test
    void theOldFilesPermissionsAreKept() throws Exception {
        files.write(TWO_STORAGES);
        Files.setPosixFilePermissions(files.file, PosixFilePermissions.fromString("rw-------"));
        store.remove("san");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.file)))
                .isEqualTo("rw-------");
    }

    @Test
    void aSymlinkedConfigurationKeepsItsLink() throws Exception {
        Path real = tmp.resolve("real/storage.yaml");
        Files.createDirectories(real.getParent());
        Files.writeString(real, TWO_STORAGES);
        Files.createDirectories(files.file.getParent());
        Files.createSymbolicLink(files.file, real);
        store.remove("san");
        assertThat(Files.isSymbolicLink(files.file)).isTrue();
        assertThat(Files.readString(real)).doesNotContain("san:");
    }

    @Test
    void temporaryFilesOfDeadWritersAreCleanedUp() throws Exception {
        files.write(TWO_STORAGES);
        Path stale = files.file.resolveSibling(".storage.yaml.tmp-999999999-deadbeef");
        Files.writeString(stale, "half a file");
        store.remove("san");
        assertThat(stale).doesNotExist();
        assertNoTemporaryFiles();
    }
}
