package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lvm2 facade against real lvm2 on a loop device: pve's command lines work there and the reports parse. */
@RootTest
class LvmOnRealLvm2Test {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    private final List<String> warnings = new ArrayList<>();
    private final List<String> infos = new ArrayList<>();
    private final Console console = new Console() {
        @Override
        public void info(String line) {
            infos.add(line);
        }

        @Override
        public void warn(String line) {
            warnings.add(line);
        }
    };

    private Lvm lvm(boolean dryRun) {
        return new Lvm(new ProcessCommandRunner(dryRun, console, vg.environment()), console);
    }

    @Test
    void createListRenameExtendRemove() {
        Lvm lvm = lvm(false);
        VolumeGroup group = lvm.vgs().group(vg.name()).orElseThrow();
        assertThat(group.size()).isEqualTo(60L << 20);
        assertThat(group.free()).isEqualTo(60L << 20);
        assertThat(group.lvCount()).isZero();

        lvm.lvcreate(vg.name(), "vm-100-disk-0", 4096, List.of("pve-vm-100"));
        LogicalVolume lv = lvm.lvs(vg.name()).find(vg.name(), "vm-100-disk-0").orElseThrow();
        assertThat(lv.size()).isEqualTo(4L << 20);
        assertThat(lv.tags()).containsExactly("pve-vm-100");
        assertThat(lv.type()).isEqualTo('-');
        assertThat(lv.ctime()).isPositive();
        assertThat(vg.tags("vm-100-disk-0")).containsExactly("pve-vm-100");

        Path path = Path.of("/dev", vg.name(), "vm-100-disk-0");
        lvm.lvextend(path, 8192);
        assertThat(lvm.lvSize(path)).isEqualTo(8L << 20);
        lvm.lvrenameForRemoval(vg.name(), "vm-100-disk-0", "del-vm-100-disk-0");
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0");
        lvm.activateForZeroing(Path.of("/dev", vg.name(), "del-vm-100-disk-0"));
        lvm.lvremove(vg.name(), "del-vm-100-disk-0");
        assertThat(vg.lvNames()).isEmpty();
        assertThat(lvm.lvs(null).inGroup(vg.name())).isEmpty();
        assertThat(warnings).isEmpty();
    }

    /** A volume's rename moves its owner tag to the new owner, and keeps it when the owner stays. */
    @Test
    void renameMovesTheOwnerTag() {
        Lvm lvm = lvm(false);
        lvm.lvcreate(vg.name(), "vm-100-disk-0", 4096, List.of(Lvm.ownerTag(100)));
        lvm.renameVolume(vg.name(), "vm-100-disk-0", 100, "vm-105-disk-0", 105);
        assertThat(vg.tags("vm-105-disk-0")).containsExactly("pve-vm-105");
        lvm.renameVolume(vg.name(), "vm-105-disk-0", 105, "vm-105-data", 105);
        assertThat(vg.lvNames()).containsExactly("vm-105-data");
        assertThat(vg.tags("vm-105-data")).containsExactly("pve-vm-105");
        assertThat(warnings).isEmpty();
    }

    /**
     * What a vsm that stalled past its cluster lock meets: the volume it listed was freed and
     * another made under the same name. Its removal and saferemove's rename, by the listed LV's
     * UUID, leave the new LV; lvcreate and lvrename never replace an LV of the name they make.
     */
    @Test
    void aRemovalByUuidLeavesAnLvMadeAgainUnderTheSameName() {
        Lvm lvm = lvm(false);
        lvm.lvcreate(vg.name(), "vm-100-disk-0", 4096, List.of());
        LogicalVolume seen = lvm.lvs(vg.name()).find(vg.name(), "vm-100-disk-0").orElseThrow();
        lvm.lvremove(seen, false); // another node frees it ...
        lvm.lvcreate(vg.name(), "vm-100-disk-0", 8192, List.of()); // ... and makes a new one
        LogicalVolume made = lvm.lvs(vg.name()).find(vg.name(), "vm-100-disk-0").orElseThrow();
        assertThat(made.uuid()).isNotEqualTo(seen.uuid());

        assertThatThrownBy(() -> lvm.lvremove(seen, false))
                .isInstanceOf(StorageException.class)
                .hasMessage(
                        "lvremove '%s/vm-100-disk-0' error: the LV of that name is no longer the one found "
                                + "(UUID %s; freed and made again meanwhile by another node?): left it alone",
                        vg.name(), seen.uuid());
        assertThatThrownBy(() -> lvm.lvrenameForRemoval(seen, "del-vm-100-disk-0", false))
                .hasMessageStartingWith(
                        "lvrename '" + vg.name() + "/vm-100-disk-0' error: the LV of that name is no longer");
        assertThat(lvm.lvs(vg.name())
                        .find(vg.name(), "vm-100-disk-0")
                        .orElseThrow()
                        .uuid())
                .as("the new LV, under its name")
                .isEqualTo(made.uuid());
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");

        assertThatThrownBy(() -> lvm.lvcreate(vg.name(), "vm-100-disk-0", 4096, List.of()))
                .hasMessageStartingWith("lvcreate '" + vg.name() + "/vm-100-disk-0' error: ")
                .hasMessageContaining("already exists");
        lvm.lvcreate(vg.name(), "vm-100-disk-1", 4096, List.of());
        assertThatThrownBy(() -> lvm.lvrename(vg.name(), "vm-100-disk-1", "vm-100-disk-0"))
                .hasMessageContaining("already exists");
        assertThat(lvm.lvs(vg.name())
                        .find(vg.name(), "vm-100-disk-0")
                        .orElseThrow()
                        .uuid())
                .isEqualTo(made.uuid());

        lvm.lvrenameForRemoval(made, "del-vm-100-disk-0", false);
        lvm.lvremove(made.withName("del-vm-100-disk-0"), false);
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-1");
        assertThat(warnings).isEmpty();
    }

    @Test
    void failuresCarryPvesPrefix() {
        assertThatThrownBy(() -> lvm(false).lvcreate(vg.name(), "too-big", 1024L * 1024, List.of()))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("lvcreate '" + vg.name() + "/too-big' error: ")
                .hasMessageContaining("insufficient free space");
        assertThatThrownBy(() -> lvm(false).lvremove(vg.name(), "nosuch"))
                .hasMessageStartingWith("lvremove '" + vg.name() + "/nosuch' error: ");
    }

    @Test
    void dryRunPrintsChangesAndChangesNothing() {
        Lvm lvm = lvm(true);
        lvm.lvcreate(vg.name(), "vm-100-disk-0", 4096, List.of("pve-vm-100"));
        assertThat(lvm.vgs().group(vg.name())).isPresent();
        assertThat(infos)
                .containsExactly("+ /sbin/lvcreate -aly -Wy --yes --size 4096k --name vm-100-disk-0 "
                        + "--setautoactivation n --addtag pve-vm-100 " + vg.name());
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void missingGroupIsAbsentFromTheReport() {
        assertThat(lvm(false).vgs().group("nosuch")).isEmpty();
    }
}
