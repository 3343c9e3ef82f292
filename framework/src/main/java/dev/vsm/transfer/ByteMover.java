package dev.vsm.transfer;

import dev.vsm.progress.ProgressMeter;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** The copy loops of the streams, in blocks of 64 KiB, advancing a progress meter and stopping when vsm is stopped. */
final class ByteMover {
    private ByteMover() {}

    /**
     * Copies from {@code in} to {@code out} until {@code limit} bytes are copied or {@code in} ends
     * ({@code limit} &lt; 0: until it ends).
     *
     * @return the bytes copied
     */
    static long copy(InputStream in, OutputStream out, long limit, ProgressMeter meter, Interruption stop)
            throws IOException {
        byte[] buffer = new byte[VolumeWriter.BLOCK];
        long copied = 0;
        while (limit < 0 || copied < limit) {
            stop.check();
            int want = limit < 0 ? buffer.length : (int) Math.min(buffer.length, limit - copied);
            int n = read(in, buffer, want, stop);
            if (n == 0) {
                break;
            }
            out.write(buffer, 0, n);
            copied += n;
            meter.advanceTo(copied);
        }
        stop.check(); // an end that a stop caused is a stop
        return copied;
    }

    /** As {@link #copy(InputStream, OutputStream, long, ProgressMeter, Interruption)}, into a volume. */
    static long copy(InputStream in, VolumeWriter out, long limit, ProgressMeter meter, Interruption stop) {
        byte[] buffer = new byte[VolumeWriter.BLOCK];
        long copied = 0;
        try {
            while (limit < 0 || copied < limit) {
                stop.check();
                int want = limit < 0 ? buffer.length : (int) Math.min(buffer.length, limit - copied);
                int n = in.readNBytes(buffer, 0, want);
                if (n == 0) {
                    break;
                }
                out.write(buffer, n);
                copied += n;
                meter.advanceTo(copied);
            }
        } catch (IOException e) {
            stop.check();
            throw StorageException.failed(e, "reading the stream failed after %d bytes: %s", copied, e.getMessage());
        }
        stop.check(); // an end that a stop caused is a stop
        return copied;
    }

    /** {@code readNBytes}; a read that fails while vsm is being stopped is the stop. */
    private static int read(InputStream in, byte[] buffer, int want, Interruption stop) throws IOException {
        try {
            return in.readNBytes(buffer, 0, want);
        } catch (IOException e) {
            stop.check();
            throw e;
        }
    }
}
