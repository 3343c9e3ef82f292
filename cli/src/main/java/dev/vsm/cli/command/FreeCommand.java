package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm free <volume>}: delete a volume (pvesm free). */
@Command(name = "free", description = "Delete a volume.")
public final class FreeCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME", description = "a volume id, or a volume name with --storage")
    String volume;

    @Option(names = "--storage", paramLabel = "ID", description = "the storage, when VOLUME is only a volume name")
    String storage;

    @Option(
            names = "--delay",
            paramLabel = "SECONDS",
            description = "pvesm's time to wait for the removal to finish, 1 to 30; vsm always waits until it has")
    Integer delay;

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        if (delay != null && (delay < 1 || delay > 30)) {
            throw StorageException.badInput("delay: value must be between 1 and 30, got %d", delay);
        }
        VolumeId volid = resolve(volume, storage);
        boolean removed = session().manager().free(volid);
        output.print(out(), Map.of("volid", volid.toString(), "dry-run", dryRun(), "removed", removed), o -> {
            if (removed) { // a volume already gone was warned about on stderr: nothing to claim
                o.println((dryRun() ? "would remove volume '" : "Removed volume '") + volid + "'");
            }
        });
    }

    /** pve's {@code real_volume_id}: a volume id, or a volume name plus {@code --storage}. */
    static VolumeId resolve(String volume, String storage) {
        if (storage == null) {
            if (!volume.contains(":")) {
                throw StorageException.badInput("volume: no storage specified - incomplete volume ID");
            }
            return VolumeId.parse(volume);
        }
        VolumeId.checkStorageId(storage);
        if (volume.contains(":")) {
            VolumeId id = VolumeId.parse(volume);
            if (!id.storage().equals(storage)) {
                throw StorageException.badInput("storage ID mismatch (%s != %s)", id.storage(), storage);
            }
            return id;
        }
        return new VolumeId(storage, volume);
    }
}
