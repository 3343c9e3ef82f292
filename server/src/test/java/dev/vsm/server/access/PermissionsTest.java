package dev.vsm.server.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pve's token header and ACL rules, on a real access file. */
class PermissionsTest {
    @TempDir
    Path dir;

    private static final Set<Privilege> AUDIT = EnumSet.of(Privilege.AUDIT);
    private static final Set<Privilege> ALLOCATE = EnumSet.of(Privilege.ALLOCATE);

    private Permissions as(AccessFile file, String header) {
        return Permissions.authenticate(file.read(), header).orElseThrow();
    }

    @Test
    void theSecretIsCheckedAndOnlyItsHashKept() throws IOException {
        AccessFile file = new AccessFile(dir.resolve("access.json"));
        String secret = file.addToken("ops@pve", "mon", true);
        assertThat(Files.readString(file.file())).doesNotContain(secret).contains(AccessFile.sha256(secret));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.file())))
                .isEqualTo("rw-------");
        AccessFile.Contents c = file.read();
        assertThat(Permissions.authenticate(c, "PVEAPIToken=ops@pve!mon=" + secret))
                .isPresent();
        assertThat(Permissions.authenticate(c, "PVEAPIToken=ops@pve!mon=" + secret + "x"))
                .isEmpty();
        assertThat(Permissions.authenticate(c, "PVEAPIToken=ops@pve!other=" + secret))
                .isEmpty();
        assertThat(Permissions.authenticate(c, "PVEAPIToken=ops@pve!mon")).isEmpty();
        assertThat(Permissions.authenticate(c, "Bearer " + secret)).isEmpty();
        assertThat(Permissions.authenticate(c, null)).isEmpty();
        assertThatThrownBy(() -> file.addToken("ops@pve", "mon", true)).hasMessageContaining("already exists");
    }

    @Test
    void nearestGrantWinsAndPropagates() {
        AccessFile file = new AccessFile(dir.resolve("access.json"));
        String secret = file.addToken("ops@pve", "mon", false);
        file.modifyAcl("/storage", List.of("ops@pve"), AUDIT, true, false);
        file.modifyAcl("/storage/bb", List.of("ops@pve"), ALLOCATE, false, false);
        Permissions p = as(file, "PVEAPIToken=ops@pve!mon=" + secret);
        assertThat(p.any("/storage/aa", AUDIT)).isTrue();
        assertThat(p.any("/storage/bb", AUDIT))
                .as("the nearer grant replaces the parent's")
                .isFalse();
        assertThat(p.any("/storage/bb", ALLOCATE)).isTrue();

        file.modifyAcl("/storage", List.of("ops@pve"), AUDIT, false, false);
        assertThat(as(file, "PVEAPIToken=ops@pve!mon=" + secret).any("/storage/aa", AUDIT))
                .as("a grant that does not propagate holds on its path only")
                .isFalse();
    }

    @Test
    void privilegeSeparationBoundsATokenByItsUser() {
        AccessFile file = new AccessFile(dir.resolve("access.json"));
        String sep = file.addToken("ops@pve", "sep", true);
        String root = file.addToken("root@pam", "sep", true);
        file.modifyAcl(
                "/storage", List.of("ops@pve!sep"), EnumSet.of(Privilege.AUDIT, Privilege.ALLOCATE), true, false);
        assertThat(as(file, "PVEAPIToken=ops@pve!sep=" + sep).any("/storage/aa", AUDIT))
                .as("the user holds nothing")
                .isFalse();
        file.modifyAcl("/", List.of("ops@pve"), AUDIT, true, false);
        Permissions p = as(file, "PVEAPIToken=ops@pve!sep=" + sep);
        assertThat(p.any("/storage/aa", AUDIT)).isTrue();
        assertThat(p.any("/storage/aa", ALLOCATE)).isFalse();
        assertThat(as(file, "PVEAPIToken=root@pam!sep=" + root).any("/storage/aa", AUDIT))
                .as("root@pam's separated token holds only its own grants")
                .isFalse();

        file.removeToken("ops@pve", "sep");
        assertThat(file.read().grants()).noneMatch(g -> g.subject().equals("ops@pve!sep"));
    }

    @Test
    void badIdsPathsAndUnsafeFilesAreRefused() throws IOException {
        AccessFile file = new AccessFile(dir.resolve("access.json"));
        assertThatThrownBy(() -> file.addToken("ops", "mon", true)).isInstanceOf(AccessException.class);
        assertThatThrownBy(() -> file.addToken("ops@pve", "m!x", true)).isInstanceOf(AccessException.class);
        assertThatThrownBy(() -> file.modifyAcl("/vms/100", List.of("ops@pve"), AUDIT, true, false))
                .isInstanceOf(AccessException.class);
        assertThatThrownBy(() -> file.modifyAcl("/storage/../x", List.of("ops@pve"), AUDIT, true, false))
                .isInstanceOf(AccessException.class);
        assertThatThrownBy(() -> file.modifyAcl("/storage", List.of("ops@pve!none"), AUDIT, true, false))
                .hasMessageContaining("no such token");
        assertThatThrownBy(() -> AccessFile.privilege("Sys.Modify")).hasMessageContaining("unknown privilege");

        file.addToken("ops@pve", "mon", true);
        Files.setPosixFilePermissions(file.file(), PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(file::read).hasMessageContaining("may be read or changed by others");
        Files.delete(file.file());
        Files.createSymbolicLink(file.file(), dir.resolve("elsewhere"));
        Files.writeString(dir.resolve("elsewhere"), "{}");
        assertThatThrownBy(file::read).hasMessageContaining("not a regular file");
    }
}
