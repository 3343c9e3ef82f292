package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.cli.support.BwlimitOption;
import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.VolumeId;
import dev.vsm.transfer.ImportSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm import <storage> <vmid> <source>}: a new volume from a disk image, with qemu-img convert. */
@Command(
        name = "import",
        description = "Import a disk image (raw, qcow2, vmdk, vdi, vhdx, vpc, qed) as a new volume; an "
                + "image that names data outside itself (a backing file, a data file, vmdk extents) is refused.",
        footer = {
            "",
            "SOURCE is a file, a block device (with --yes) or a volume id.",
            "dir: qemu-img convert with the storage's image options; lvm: an LV sized for the image, written with convert -n",
            "(every zero written, unless the storage's saferemove means a new LV reads zeros)."
        })
public final class ImportCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Parameters(index = "1", paramLabel = "VMID")
    String vmid;

    @Parameters(index = "2", paramLabel = "SOURCE")
    String source;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description = "the new volume's format: raw or qcow2 (default: the storage's)")
    String format;

    @Option(
            names = "--name",
            paramLabel = "NAME",
            description = "the new volume's name (default: the next free vm-<vmid>-disk-<n>)")
    String name;

    @Option(
            names = "--source-format",
            paramLabel = "FORMAT",
            description =
                    "read SOURCE as this format instead of telling it from its first bytes (raw takes any data as a "
                            + "raw disk)")
    String sourceFormat;

    @Option(names = "--yes", description = "SOURCE may be a block device (nothing may write to it while it is read)")
    boolean yes;

    @Mixin
    BwlimitOption bwlimit;

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        int owner = Args.vmid(vmid);
        var transfers = session().transfers();
        // an import has no bwlimit key of its own: each storage's default
        transfers.limitConverts(transfers.limit(
                "import", List.of(storage), bwlimit.value(), session().mayChangeStorages()));
        VolumeId volid;
        SourceImage image;
        String shownSource;
        try (ImportSource opened = transfers.imports().source(source, sourceFormat, yes)) {
            image = opened.image();
            shownSource = opened.shown();
            volid = transfers.imports().importImage(storage, owner, opened, format, name);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("volid", volid.toString());
        result.put("source", shownSource);
        result.put("source-format", image.format());
        result.put("virtual-size", image.virtualSize());
        result.put("dry-run", dryRun());
        output.print(
                out(), result, o -> o.println((dryRun() ? "would import '" : "successfully imported '") + volid + "'"));
    }
}
