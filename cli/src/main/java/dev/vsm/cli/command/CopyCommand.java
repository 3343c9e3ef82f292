package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.cli.support.BwlimitOption;
import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.transfer.VolumeCopier;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm copy <volid> <target-storage>}: a full copy of a volume as a new volume on a storage. */
@Command(
        name = "copy",
        description = "Copy a volume to a storage as a new volume (the storage half of moving a VM disk).",
        footer = {"", "qemu-img convert when the target storage imports images, else a raw+size stream."})
public final class CopyCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "TARGET-STORAGE")
    String targetStorage;

    @Option(names = "--vmid", paramLabel = "VMID", description = "the copy's owner (default: the volume's)")
    String vmid;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description =
                    "the copy's format (default: the volume's when the target takes it, else the target's default)")
    String format;

    @Option(
            names = "--method",
            paramLabel = "METHOD",
            description =
                    "convert or stream (default: convert when the target " + "storage imports images, else a stream)")
    String method;

    @Mixin
    BwlimitOption bwlimit;

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        VolumeId source = VolumeId.parse(volume);
        VolumeId.checkStorageId(targetStorage);
        Integer owner = vmid == null ? null : Args.vmid(vmid);
        VolumeCopier.Method how = method == null
                ? null
                : switch (method) {
                    case "convert" -> VolumeCopier.Method.CONVERT;
                    case "stream" -> VolumeCopier.Method.STREAM;
                    default ->
                        throw StorageException.badInput(
                                "method: '%s' is not convert or stream", VolumeId.printable(method));
                };
        VolumeCopier.Copy copy = session()
                .transfers()
                .copy(
                        source,
                        targetStorage,
                        owner,
                        format,
                        how,
                        null,
                        bwlimit.value(),
                        session().mayChangeStorages());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("source", source.toString());
        result.put("volid", copy.volid().toString());
        result.put("method", copy.method().name().toLowerCase(Locale.ROOT));
        result.put("dry-run", dryRun());
        output.print(
                out(),
                result,
                o -> o.println((dryRun() ? "would copy '" : "successfully copied '") + source + "' to '" + copy.volid()
                        + "'"));
    }
}
