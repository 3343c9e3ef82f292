package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final Pattern EXT = Pattern.compile("\\.(raw|qcow2|vmdk)$");

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
        VolumeId.checkStorageId(storage);
        int owner = Args.vmid(vmid);
        String fmt = format;
        Matcher m = EXT.matcher(filename);
        if (m.find()) {
            if (fmt != null && !fmt.equals(m.group(1))) {
                throw StorageException.badInput("format: different storage formats (%s != %s)", fmt, m.group(1));
            }
            fmt = m.group(1);
        }
        long kib = Args.sizeKib(size, VolumeFormat.SUBVOL.is(fmt));
        String name = filename.isEmpty() ? null : filename;
        VolumeId volid = session().manager().alloc(storage, owner, name, fmt, kib, preallocation);
        output.print(
                out(),
                Map.of("volid", volid.toString(), "dry-run", dryRun()),
                o -> o.println((dryRun() ? "would create '" : "successfully created '") + volid + "'"));
    }
}
