package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm add|set|remove} through the facade on a configuration file: what each change did,
 * pve's {@code delete} and {@code digest}, and refusals that leave the file byte-identical.
 */
class ConfigChangesApiTest {
    @TempDir
    Path dir;

    private VsmStorage vsm() {
        return VsmStorage.builder()
                .configFile(dir.resolve("storage.yaml"))
                .lockDirectory(dir.resolve("locks"))
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    @Test
    void aStorageIsAddedChangedAndRemoved() throws Exception {
        String path = dir.resolve("store").toString();
        ConfigChange added;
        try (VsmStorage vsm = vsm()) {
            added = vsm.addStorage(NewStorage.of("dir", "store")
                    .property("path", path)
                    .property("content", "images,iso")
                    .property("shared", true));
        }
        assertThat(added.before()).isEmpty();
        assertThat(added.after().map(StorageConfig::type)).contains("dir");
        assertThat(added.written()).isTrue();
        try (VsmStorage vsm = vsm()) {
            assertThat(vsm.configDigest()).isEqualTo(added.digest());
            ConfigChange set = vsm.updateStorage(StorageUpdate.of("store")
                    .set("content", "backup")
                    .delete(List.of("shared"))
                    .digest(added.digest()));
            assertThat(set.before().orElseThrow().properties()).containsKey("shared");
            assertThat(set.after().orElseThrow().properties()).doesNotContainKey("shared");
            assertThat(set.after().orElseThrow().properties().get("content")).isEqualTo(List.of("backup"));
        }
        byte[] before = Files.readAllBytes(dir.resolve("storage.yaml"));
        try (VsmStorage vsm = vsm()) {
            // the digest of the file before the last change: stale
            assertThatThrownBy(() -> vsm.updateStorage(
                            StorageUpdate.of("store").set("content", "iso").digest(added.digest())))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("detected modified configuration");
            assertThatThrownBy(() -> vsm.updateStorage(StorageUpdate.of("store").delete(List.of("path"))))
                    .hasMessageContaining("unable to delete required option 'path'");
            assertThatThrownBy(() -> vsm.addStorage(NewStorage.of("nosuchtype", "other")))
                    .hasMessageContaining("unknown storage type 'nosuchtype'");
            assertThatThrownBy(() -> vsm.addStorage(
                            NewStorage.of("dir", "other").property("path", path).property("bogus", "1")))
                    .hasMessageContaining("unexpected property 'bogus'");
        }
        assertThat(Files.readAllBytes(dir.resolve("storage.yaml"))).isEqualTo(before);
        try (VsmStorage vsm = vsm()) {
            ConfigChange removed = vsm.removeStorage("store");
            assertThat(removed.after()).isEmpty();
            assertThat(vsm.configuration()).isEmpty();
        }
        try (VsmStorage vsm = vsm()) {
            assertThat(vsm.configuration()).isEmpty();
        }
    }

    @Test
    void aDryRunWritesNothing() throws Exception {
        try (VsmStorage vsm = VsmStorage.builder()
                .configFile(dir.resolve("storage.yaml"))
                .lockDirectory(dir.resolve("locks"))
                .dryRun(true)
                .build()) {
            ConfigChange change = vsm.addStorage(NewStorage.of("dir", "store").property("path", dir.toString()));
            assertThat(change.written()).isFalse();
            assertThat(change.dryRunLines()).isNotEmpty();
        }
        assertThat(dir.resolve("storage.yaml")).doesNotExist();
    }
}
