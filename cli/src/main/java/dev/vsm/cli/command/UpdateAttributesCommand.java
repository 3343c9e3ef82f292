package dev.vsm.cli.command;

import dev.vsm.config.PveBoolean;
import dev.vsm.engine.Backups;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm update-attributes <volume> [--notes TEXT] [--protected 0|1]}: a backup's notes and
 * protection (pve's {@code updateattributes}). A protected backup is neither freed nor pruned.
 */
@Command(name = "update-attributes", description = "Set a backup's notes and protection.")
public final class UpdateAttributesCommand extends ChangingCommand {

    @Parameters(index = "0", paramLabel = "VOLUME", description = "a volume id, or a volume name with --storage")
    String volume;

    @Option(names = "--storage", paramLabel = "ID", description = "the storage, when VOLUME is only a volume name")
    String storage;

    @Option(names = "--notes", paramLabel = "TEXT", description = "the new notes (empty: remove them)")
    String notes;

    @Option(
            names = "--protected",
            paramLabel = "BOOL",
            description = "1: protect the backup from removal and pruning; 0: lift it")
    String protect;

    @Override
    void execute() {
        VolumeId volid = FreeCommand.resolve(volume, storage);
        Boolean value = protect == null ? null : bool(protect);
        new Backups(session().manager(), ZoneId.systemDefault()).updateAttributes(volid, notes, value);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("volid", volid.toString());
        if (notes != null) {
            json.put("notes", notes);
        }
        if (value != null) {
            json.put("protected", value);
        }
        json.put("dry-run", dryRun());
        output.print(out(), json, o -> {});
    }

    private static boolean bool(String text) {
        return PveBoolean.parse(text)
                .orElseThrow(() -> StorageException.badInput(
                        "protected: type check ('boolean') failed - got '%s'", VolumeId.printable(text)));
    }
}
