package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm cleanup <storage>}: finish what an interrupted run left on a storage — on LVM with
 * saferemove, the {@code del-*} volumes whose zero-out did not complete (they are zeroed and
 * removed now); on a file storage with volume chains, the chain operations a killed run left
 * (finished or undone, docs/volume-chains.md); the temporary files and tombstones of killed runs. {@code vsm free}
 * on such a storage does this first as well.
 */
@Command(
        name = "cleanup",
        description = "Finish what an interrupted run left on a storage: pending del-* volumes (LVM), "
                + "interrupted volume-chain operations, temporary files and tombstones.")
public final class CleanupCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        List<String> done = session().manager().cleanup(storage);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("storage", storage);
        json.put("pending", done);
        json.put("dry-run", dryRun());
        output.print(out(), json, o -> {
            if (done.isEmpty()) {
                o.println("nothing to clean up on storage '" + storage + "'");
            } else {
                o.println("cleanup of storage '" + storage + "' " + (dryRun() ? "would be " : "") + "done ("
                        + done.size() + " pending removal" + (done.size() == 1 ? "" : "s") + ": "
                        + String.join(", ", done) + ")");
            }
        });
    }
}
