package dev.vsm.cluster;

import dev.vsm.config.ConfigUnavailableException;
import dev.vsm.spi.StorageException;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The secret vsm authenticates to ZooKeeper with (digest user {@link #USER}): one line in a file
 * only the user vsm runs as (root) may read. Whoever can read it can change the cluster's storage
 * configuration, so a file that is a link, not a regular file, not this user's, readable or
 * writable by group or others, in a directory others may change, empty, shorter than
 * {@value #MIN_LENGTH} characters or longer than {@value #MAX_BYTES} bytes is refused with one
 * line (bad input) and never used.
 *
 * <p>Java has no {@code fstat}: the file is opened without following a link and its identity
 * (device and inode) and attributes are read before and after the open; a file swapped in between
 * is refused. The directories above it must be root's (or this user's) alone, so that nobody else
 * can swap it at all.
 */
final class SecretFile {
    /** The digest user name vsm authenticates as. */
    static final String USER = "vsm";

    static final int MIN_LENGTH = 16;
    static final int MAX_BYTES = 1024;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Pattern SECRET = Pattern.compile("[\\x21-\\x7e]+");

    private SecretFile() {}

    /**
     * The secret in {@code file}.
     *
     * @throws StorageException (bad input) when the file is absent or refused (see the class comment)
     */
    static String read(Path file) {
        try {
            requireTrustedParents(file);
            Object identity = checked(file).fileKey();
            byte[] bytes;
            try (SeekableByteChannel channel =
                    Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
                BasicFileAttributes after = checked(file);
                if (identity == null || !identity.equals(after.fileKey())) {
                    throw refused(file, "was replaced while vsm opened it");
                }
                ByteBuffer buffer = ByteBuffer.allocate(MAX_BYTES + 1);
                while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                    // bounded: a file longer than MAX_BYTES is refused below, never read whole
                }
                bytes = new byte[buffer.position()];
                buffer.flip().get(bytes);
            }
            if (bytes.length > MAX_BYTES) {
                throw refused(file, "is longer than " + MAX_BYTES + " bytes");
            }
            String text = new String(bytes, StandardCharsets.US_ASCII);
            String secret = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
            if (secret.isEmpty()) {
                throw refused(file, "is empty");
            }
            if (!SECRET.matcher(secret).matches()) {
                throw refused(file, "is not one line of printable ASCII characters without spaces");
            }
            if (secret.length() < MIN_LENGTH) {
                throw refused(file, "holds a secret shorter than " + MIN_LENGTH + " characters");
            }
            return secret;
        } catch (NoSuchFileException e) {
            throw badInput(
                    "cluster secret file '%s' does not exist: run 'vsm cluster init' on one node and copy the file"
                            + " it creates to every node (root's, mode 0600)",
                    file);
        } catch (IOException e) {
            throw badInput("cluster secret file '%s' cannot be read: %s", file, e.getMessage());
        }
    }

    /**
     * Creates {@code file} with a new random secret (256 bits, base64url), mode 0600 from the
     * start; the file appears whole or not at all (written under a temporary name, then linked to
     * its name, which fails rather than replace a file that appeared meanwhile).
     *
     * @return whether it was created: false when it already exists (it is then left as it is)
     * @throws StorageException (bad input) when its directory is not trusted or cannot be written
     */
    static boolean create(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        try {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            Files.createDirectories(dir);
            requireTrustedParents(file);
            byte[] line = (generate() + "\n").getBytes(StandardCharsets.US_ASCII);
            Path tmp = Files.createTempFile(
                    dir, ".cluster-secret", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try {
                Files.write(tmp, line, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                Files.createLink(file, tmp);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw badInput("cannot create the cluster secret file '%s': %s", file, e.getMessage());
        }
    }

    /** A new random secret: 256 bits, base64url (43 characters). */
    static String generate() {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** {@code vsm:<base64 of SHA-1 of "vsm:<secret>">}: the id of ZooKeeper's digest scheme for {@code secret}. */
    static String digestId(String secret) {
        try {
            return DigestAuthenticationProvider.generateDigest(USER + ":" + secret);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    /** {@code file}'s attributes (not following a link) if it is this user's regular file, mode 0600 or 0400. */
    private static BasicFileAttributes checked(Path file) throws IOException {
        FileTrust.Stat stat = FileTrust.lstat(file);
        if (!stat.isRegularFile()) {
            throw refused(file, "is a " + stat.kind() + ", not a regular file");
        }
        if (stat.uid() != FileTrust.callerUid()) {
            throw refused(
                    file,
                    "is not " + (FileTrust.callerIsRoot() ? "root's" : "yours") + " (" + stat.describe() + "): chown "
                            + (FileTrust.callerIsRoot() ? "root" : FileTrust.callerUid()) + " " + file);
        }
        if ((stat.mode() & 077) != 0) {
            throw refused(
                    file,
                    "may be read or written by group or others (" + stat.describe() + "): chmod 0600 " + file
                            + ", and make a new secret if others read it");
        }
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    private static void requireTrustedParents(Path file) throws IOException {
        Optional<FileTrust.Problem> problem = FileTrust.untrustedParents(file);
        if (problem.isPresent()) {
            throw refused(
                    file,
                    "is in a directory others may change: " + problem.get().describe());
        }
    }

    /**
     * Bad input that {@link dev.vsm.config.ConfigStore} passes on as it is (every command says it
     * in the same words, without {@code create storage failed: }).
     */
    private static StorageException badInput(String format, Object... args) {
        return new ConfigUnavailableException(StorageException.Kind.BAD_INPUT, String.format(format, args));
    }

    private static StorageException refused(Path file, String why) {
        return badInput("cluster secret file '%s' %s", file, why);
    }
}
