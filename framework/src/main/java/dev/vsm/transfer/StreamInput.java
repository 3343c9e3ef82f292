package dev.vsm.transfer;

import dev.vsm.exec.DataFilter;
import dev.vsm.spi.StorageException;
import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a stream's bytes come from: a file or vsm's standard input, read directly or, with a
 * bandwidth limit, through {@code cstream -t}. Closing it closes the file (never standard input)
 * and checks how cstream ended.
 */
final class StreamInput implements AutoCloseable {
    private final InputStream in;
    private final DataFilter filter;
    private final boolean closeIn;

    private StreamInput(InputStream in, DataFilter filter, boolean closeIn) {
        this.in = in;
        this.filter = filter;
        this.closeIn = closeIn;
    }

    /**
     * @param file  the file to read, or null for standard input
     * @param limit a bandwidth limit, or null
     */
    static StreamInput open(Path file, BandwidthLimit limit) {
        if (file != null && !Files.isReadable(file)) {
            throw StorageException.badInput(
                    "cannot read '%s': %s", file, Files.exists(file) ? "permission denied" : "no such file");
        }
        if (limit != null) {
            DataFilter filter = DataFilter.start(limit.cstream(), file);
            return new StreamInput(filter.output(), filter, false);
        }
        if (file == null) {
            // buffered: FileInputStream's own readNBytes seeks, which a pipe refuses ("Illegal seek")
            return new StreamInput(
                    new BufferedInputStream(new FileInputStream(FileDescriptor.in), VolumeWriter.BLOCK), null, false);
        }
        try {
            return new StreamInput(Files.newInputStream(file), null, true);
        } catch (NoSuchFileException e) {
            throw StorageException.badInput("cannot read '%s': no such file", file);
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot read '%s': %s", file, e.getMessage());
        }
    }

    InputStream in() {
        return in;
    }

    @Override
    public void close() {
        if (filter != null) {
            filter.close();
        } else if (closeIn) {
            try {
                in.close();
            } catch (IOException e) {
                throw StorageException.failed(e, "closing the stream failed: %s", e.getMessage());
            }
        }
    }
}
