package dev.vsm.spi;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Random numbers for the names vsm makes (temporary files beside an image or the configuration,
 * import claims), read from the kernel's {@code /dev/urandom}: as unpredictable as
 * {@link SecureRandom}, whose start-up (the security providers, their object identifiers, a seed
 * digest) cost 20-25 ms of every {@code vsm alloc}. {@link SecureRandom} is the fall-back where
 * the device cannot be read.
 */
public final class Urandom {
    private static final String DEVICE = "/dev/urandom";

    private Urandom() {}

    public static int nextInt() {
        return (int) bits(Integer.BYTES);
    }

    public static long nextLong() {
        return bits(Long.BYTES);
    }

    private static long bits(int bytes) {
        byte[] read = new byte[bytes];
        try (InputStream in = new FileInputStream(DEVICE)) {
            int done = 0;
            while (done < bytes) {
                int n = in.read(read, done, bytes - done);
                if (n < 0) {
                    return Fallback.INSTANCE.nextLong();
                }
                done += n;
            }
        } catch (IOException e) {
            return Fallback.INSTANCE.nextLong();
        }
        long value = 0;
        for (byte b : read) {
            value = value << 8 | (b & 0xff);
        }
        return value;
    }

    /** Started only when the device could not be read. */
    private static final class Fallback {
        static final SecureRandom INSTANCE = new SecureRandom();
    }
}
