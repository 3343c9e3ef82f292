package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A file of {@code iso}, {@code vztmpl} or {@code import} content that {@link VsmStorage#upload}
 * makes from its bytes (pve's {@code upload}): the storage, the content, the file's name (a name
 * only, as {@code <content>/<name>} of a volume id; it is parsed as the command line parses
 * volume ids), the bytes, and optionally the checksum they must have.
 */
public final class Upload {
    /** pve's {@code checksum-algorithm}s, by the JDK's names of their digests. */
    private static final Map<String, String> ALGORITHMS = Map.of(
            "md5", "MD5",
            "sha1", "SHA-1",
            "sha224", "SHA-224",
            "sha256", "SHA-256",
            "sha384", "SHA-384",
            "sha512", "SHA-512");

    /** The content types a file is uploaded as. */
    public static final Set<ContentType> CONTENT = Set.of(ContentType.ISO, ContentType.VZTMPL, ContentType.IMPORT);

    private final String storage;
    private final ContentType content;
    private final String filename;
    private final InputStream data;
    private final String algorithm;
    private final String checksum;

    private Upload(
            String storage, ContentType content, String filename, InputStream data, String algorithm, String checksum) {
        this.storage = storage;
        this.content = content;
        this.filename = filename;
        this.data = data;
        this.algorithm = algorithm;
        this.checksum = checksum;
    }

    /** A file of {@code content} named {@code filename} on {@code storage}, from {@code data} (read to its end, not closed). */
    public static Upload of(String storage, ContentType content, String filename, InputStream data) {
        requireNonNull(storage, "storage");
        requireNonNull(content, "content");
        requireNonNull(filename, "filename");
        requireNonNull(data, "data");
        if (!CONTENT.contains(content)) {
            throw StorageException.badInput("upload content type '%s' not allowed", content.id());
        }
        return new Upload(storage, content, filename, data, null, null);
    }

    /**
     * The checksum the bytes must have, hex, with pve's algorithm name ({@code md5}, {@code sha1},
     * {@code sha224}, {@code sha256}, {@code sha384}, {@code sha512}); compared ignoring case.
     */
    public Upload checksum(String algorithm, String checksum) {
        requireNonNull(algorithm, "algorithm");
        requireNonNull(checksum, "checksum");
        if (!ALGORITHMS.containsKey(algorithm)) {
            throw StorageException.badInput(
                    "checksum-algorithm: value '%s' does not have a value in the enumeration "
                            + "'md5, sha1, sha224, sha256, sha384, sha512'",
                    VolumeId.printable(algorithm));
        }
        return new Upload(storage, content, filename, data, algorithm, checksum);
    }

    /** The volume id the file gets: {@code storage:content/filename}, parsed as the command line parses it. */
    public VolumeId volume() {
        if (filename.indexOf('/') >= 0 || filename.indexOf('\\') >= 0) {
            throw StorageException.badInput(
                    "filename '%s' is a path: give the file's name only", VolumeId.printable(filename));
        }
        return VolumeId.parse(storage + ":" + content.id() + "/" + filename);
    }

    InputStream data() {
        return data;
    }

    /** A digest of the checksum's algorithm, or null when none is asked for. */
    MessageDigest digest() {
        if (algorithm == null) {
            return null;
        }
        try {
            return MessageDigest.getInstance(ALGORITHMS.get(algorithm));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + algorithm, e);
        }
    }

    /** Fails, with pve's message, when {@code digest} is not the checksum asked for. */
    void verify(MessageDigest digest) {
        String got = HexFormat.of().formatHex(digest.digest());
        if (!got.equals(checksum.toLowerCase(Locale.ROOT))) {
            throw StorageException.badInput(
                    "checksum mismatch: got '%s' != expect '%s'", got, VolumeId.printable(checksum));
        }
    }
}
