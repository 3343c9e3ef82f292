package dev.vsm.cli.command;

import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm import-metadata <volume>}: what the guest an OVF or OVA of {@code import} content
 * describes should be created with, as pve's {@code GET /nodes/{node}/storage/{storage}/import-metadata}
 * returns it. JSON by default (pvesm has no such command; pve's answer is JSON), keys sorted as pve's
 * JSON output has them. What pve warns about while it reads the descriptor (an item it skips) goes
 * to stderr as {@code warning:} lines.
 */
@Command(
        name = "import-metadata",
        description = "Show what the guest an OVF or OVA of import content describes should be created with"
                + " (pve's import-metadata); JSON unless --output-format says otherwise (text is JSON too).")
public final class ImportMetadataCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME", description = "an .ovf or .ova volume of import content")
    String volume;

    @Override
    void execute() {
        ImportMetadata metadata = session().transfers().imports().importMetadata(VolumeId.parse(volume));
        for (String note : metadata.notes()) {
            vsm().err().println(note.startsWith("warning: ") ? note : "warning: " + note);
        }
        output.printJsonByDefault(out(), plain(metadata));
    }

    /** The metadata as pve's JSON has it: {@code efidisk0} is {@code 1} among the disks, a size only when known. */
    static Map<String, Object> plain(ImportMetadata m) {
        Map<String, Object> disks = new java.util.TreeMap<>();
        m.disks().forEach((key, disk) -> {
            Map<String, Object> d = new LinkedHashMap<>();
            if (disk.size().isPresent()) {
                d.put("size", disk.size().getAsLong());
            }
            d.put("volid", disk.volid().toString());
            disks.put(key, d);
        });
        if (m.efiDisk()) {
            disks.put("efidisk0", 1);
        }
        List<Object> warnings = new ArrayList<>();
        for (ImportMetadata.Warning w : m.warnings()) {
            Map<String, Object> x = new LinkedHashMap<>();
            if (w.key() != null) {
                x.put("key", w.key());
            }
            x.put("type", w.type());
            if (w.value() != null) {
                x.put("value", w.value());
            }
            warnings.add(x);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("create-args", m.createArgs());
        out.put("disks", disks);
        out.put("net", m.net());
        out.put("source", m.source());
        out.put("type", m.type());
        out.put("warnings", warnings);
        return out;
    }
}
