package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.RecordingConsole;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What scan refuses before it runs lvm2 (the scans themselves: LvmOnRealLvm2Test, and the t/ walk-throughs). */
class LvmScansTest {
    private final RecordingConsole console = new RecordingConsole();
    private final DefaultStorageContext context =
            DefaultStorageContext.builder(console).dryRun(true).build();

    @Test
    void scanLvmTakesNoArguments() {
        assertThatThrownBy(() -> LvmScans.volumeGroups(List.of("vg0"), context))
                .isInstanceOf(StorageException.class)
                .hasMessage("scan lvm takes no arguments")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }

    @Test
    void scanLvmthinTakesTheVolumeGroupAsItsOneArgument() {
        for (List<String> args : List.of(List.<String>of(), List.of("vg0", "vg1"))) {
            assertThatThrownBy(() -> LvmScans.thinPools(args, context))
                    .as(args.toString())
                    .hasMessage("scan lvmthin takes one argument: the volume group");
        }
        assertThatThrownBy(() -> LvmScans.thinPools(List.of("vg 0"), context))
                .hasMessage("lvm name 'vg 0' contains illegal characters");
    }

    @Test
    void aSectionWithoutAVolumeGroupHasNoDevices() {
        assertThat(LvmScans.physicalVolumes(new StorageConfig("san", "lvm", Map.of()), context))
                .isEmpty();
    }
}
