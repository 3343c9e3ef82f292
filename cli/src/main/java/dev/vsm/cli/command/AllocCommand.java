package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.engine.Allocation;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm alloc <storage> <vmid> <filename> <size>}: allocate a disk image (pvesm alloc). */
@Command(
        name = "alloc",
        description = "Allocate a disk image.",
        footer = {
            "",
            "FILENAME '' lets the storage pick the next free name (vm-<vmid>-disk-<n>).",
            "A FILENAME ending in .raw, .qcow2 or .vmdk sets the format.",
            Args.SIZE_HELP
        })
public final class AllocCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Parameters(index = "1", paramLabel = "VMID")
    String vmid;

    @Parameters(index = "2", paramLabel = "FILENAME")
    String filename;

    @Parameters(index = "3", paramLabel = "SIZE")
    String size;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description = "raw, qcow2, vmdk or subvol (default: the storage's)")
    String format;

    @Option(
            names = "--preallocation",
            paramLabel = "MODE",
            description = "off, metadata, falloc or full, for this image only (default: the storage's)")
    String preallocation;

    @Override
    void execute() {
        VolumeId volid = session()
                .manager()
                .alloc(Allocation.of(storage, Args.vmid(vmid), Args.sizeKib(size, true))
                        .name(filename)
                        .format(format)
                        .preallocation(preallocation));
        output.print(
                out(),
                Map.of("volid", volid.toString(), "dry-run", dryRun()),
                o -> o.println((dryRun() ? "would create '" : "successfully created '") + volid + "'"));
    }
}
