package dev.vsm.backup;

import dev.vsm.exec.DataFilter;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The guest configuration inside a vzdump archive (pve's {@code extract_vzdump_config}): for a
 * container ({@code lxc}, {@code openvz}) the tar member {@code ./etc/vzdump/pct.conf} (or
 * {@code vps.conf}), for a VM in a tar archive {@code ./qemu-server.conf}, for a VM in a VMA archive
 * the {@code qemu-server.conf} blob of its header ({@link VmaHeader}, read here instead of with the
 * {@code vma} tool). Compressed archives are read through Debian's tools ({@code tar -z/--lzop/--zstd/--bzip2},
 * {@code zcat}, {@code lzop -d -c}, {@code zstd -q -d -c}, {@code bzcat -q}), each given the archive
 * on its standard input and stopped as soon as the configuration is read.
 */
public final class VzdumpConfig {
    /** The most a configuration may hold (a VMA blob holds at most 64 KiB). */
    static final int MAX_CONFIG = 1 << 20;

    private static final Pattern CONTAINER_CONF = Pattern.compile("\\./etc/vzdump/(pct|vps)\\.conf");
    private static final Pattern VM_CONF = Pattern.compile("(\\./)?qemu-server\\.conf");
    private static final String VMA_CONF = "qemu-server.conf";

    private VzdumpConfig() {}

    /**
     * The configuration, its lines each ending in a line feed (as pve collects it).
     *
     * @param archive the archive file; not followed when it is a symbolic link
     * @throws StorageException bad input for a missing or bad archive, one without a configuration,
     *                          or one whose decompressor fails on it
     */
    public static String extract(Path archive, ArchiveInfo info) {
        if (!Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("ERROR: file '%s' does not exist", archive);
        }
        byte[] raw;
        try (HeldFile held = hold(archive)) {
            if (info.type().equals("qemu") && info.format().equals("vma")) {
                raw = vma(archive, held.path(), info);
            } else if (info.type().equals("qemu")) {
                raw = tar(archive, held.path(), info, VM_CONF);
            } else {
                raw = tar(archive, held.path(), info, CONTAINER_CONF);
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", archive, e.getMessage());
        }
        String text = new String(raw, StandardCharsets.UTF_8);
        return text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
    }

    /**
     * The archive, opened once without following a link and checked through its descriptor: what
     * the decompressor and tar read is this open file ({@link HeldFile#path()}), not a name that
     * whoever may write into the backup directory could meanwhile point elsewhere.
     */
    private static HeldFile hold(Path archive) throws IOException {
        HeldFile held;
        try {
            held = HeldFile.of(FileChannel.open(archive, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            throw StorageException.badInput("ERROR: file '%s' does not exist", archive);
        } catch (IOException e) {
            boolean link = String.valueOf(e.getMessage()).contains("symbolic links"); // ELOOP: a link swapped in
            if (link || !Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
                throw StorageException.badInput("'%s' is not a regular file: not reading it", archive);
            }
            throw e;
        }
        if (!held.attributes().isRegularFile()) {
            held.close();
            throw StorageException.badInput("'%s' is not a regular file: not reading it", archive);
        }
        return held;
    }

    private static byte[] vma(Path archive, Path input, ArchiveInfo info) throws IOException {
        VmaHeader header;
        if (info.decompressor() == null) {
            try (InputStream in = Files.newInputStream(input)) {
                header = readVma(archive, in);
            }
        } else {
            header = filtered(archive, input, info.decompressor(), out -> readVma(archive, out));
        }
        byte[] config = header.configs().get(VMA_CONF);
        if (config == null) {
            throw StorageException.badInput("unable to find configuration data '%s' in '%s'", VMA_CONF, archive);
        }
        return config;
    }

    private static VmaHeader readVma(Path archive, InputStream in) throws IOException {
        try {
            return VmaHeader.read(in);
        } catch (StorageException e) {
            throw StorageException.badInput("'%s': %s", archive, e.getMessage());
        }
    }

    private static byte[] tar(Path archive, Path input, ArchiveInfo info, Pattern member) throws IOException {
        List<String> tar = new ArrayList<>(info.decompressor() == null ? List.of("tar") : info.decompressor());
        List<String> list = new ArrayList<>(tar);
        list.addAll(List.of("-tf", "-"));
        String found = filtered(archive, input, list, out -> {
            BufferedReader names = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8));
            for (String name = names.readLine(); name != null; name = names.readLine()) {
                if (member.matcher(name).matches()) {
                    return name;
                }
            }
            return null;
        });
        if (found == null) {
            throw StorageException.badInput("ERROR: archive contains no configuration file ('%s')", archive);
        }
        List<String> extract = new ArrayList<>(tar);
        extract.addAll(List.of("-xOf", "-", "--occurrence", "--", found));
        return filtered(archive, input, extract, out -> {
            byte[] data = out.readNBytes(MAX_CONFIG + 1);
            if (data.length > MAX_CONFIG) {
                throw StorageException.badInput(
                        "the configuration in '%s' is larger than %d bytes", archive, MAX_CONFIG);
            }
            return data;
        });
    }

    /** What {@code reader} makes of the output of {@code argv} reading the archive; the command's failure is bad input. */
    private static <T> T filtered(Path archive, Path input, List<String> argv, OutputReader<T> reader)
            throws IOException {
        DataFilter filter = DataFilter.start(argv, input);
        T result;
        try {
            result = reader.read(filter.output());
        } catch (StorageException | IOException e) {
            closeFailed(archive, filter);
            throw e;
        }
        closeFailed(archive, filter);
        return result;
    }

    private static void closeFailed(Path archive, DataFilter filter) {
        try {
            filter.close();
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.FAILED && !(e instanceof InterruptedCommandException)) {
                throw StorageException.badInput("unable to read archive '%s' - %s", archive, e.getMessage());
            }
            throw e;
        }
    }

    @FunctionalInterface
    private interface OutputReader<T> {
        T read(InputStream out) throws IOException;
    }
}
