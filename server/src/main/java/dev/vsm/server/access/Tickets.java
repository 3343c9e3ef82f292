package dev.vsm.server.access;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * pve's login tickets ({@code PVEAuthCookie}) and CSRF prevention tokens, in pve-common's
 * {@code PVE::Ticket} formats: a ticket is {@code PVE:USER@REALM:TIMESTAMP::SIGNATURE} (the user's
 * {@code :} percent-encoded, the timestamp 8 upper-case hex digits of Unix seconds), a CSRF token
 * {@code TIMESTAMP:BASE64} with the base64 (unpadded) HMAC-SHA256 of {@code TIMESTAMP:USER@REALM}.
 * Both are valid from 5 minutes before their timestamp (clock skew) to 2 hours after, as pve's.
 *
 * <p>pve signs tickets with an RSA key so that every node of a cluster can verify them with the
 * public half; here only the server that made a ticket verifies it, so the signature is an
 * HMAC-SHA256 (base64, unpadded) under a 256-bit key of the node's, {@code vsm-auth.key} in the
 * server's private directory (made at first start, mode 0600). Clients treat both as opaque.
 * The CSRF tokens use a key derived from the same one.
 */
public final class Tickets {
    /** The key's file in the server's private directory. */
    public static final String KEY = "vsm-auth.key";
    /** pve's lifetime of a ticket and a CSRF token: 2 hours. */
    public static final long MAX_AGE = 7200;
    /** pve's allowance for clock skew: a timestamp up to 5 minutes ahead. */
    static final long MIN_AGE = -300;

    private static final Pattern TICKET = Pattern.compile("PVE:(\\S+):([0-9A-F]{8})::([^:\\s]+)");
    private static final Pattern CSRF = Pattern.compile("([0-9A-F]{8}):(\\S+)");

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] ticketKey;
    private final byte[] csrfKey;
    private final LongSupplier clock;

    Tickets(byte[] key, LongSupplier clock) {
        this.ticketKey = hmac(key, "vsm ticket".getBytes(StandardCharsets.US_ASCII));
        this.csrfKey = hmac(key, "vsm csrf".getBytes(StandardCharsets.US_ASCII));
        this.clock = clock;
    }

    /** The key in {@code dir} (a directory of the caller's, mode 0700), made first when missing. */
    public static Tickets inDirectory(Path dir) {
        try {
            if (Files.notExists(dir)) {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            PrivateFiles.checkPrivateDirectory(dir);
            Path file = dir.resolve(KEY);
            byte[] key;
            try {
                PrivateFiles.checkPrivateFile(file);
                key = HexFormat.of()
                        .parseHex(Files.readString(file, StandardCharsets.US_ASCII)
                                .strip());
            } catch (NoSuchFileException e) {
                key = make(file);
            } catch (IllegalArgumentException e) {
                throw new AccessException(file + " holds no key (64 hex digits): remove it to make a new one");
            }
            if (key.length != 32) {
                throw new AccessException(file + " holds no key (64 hex digits): remove it to make a new one");
            }
            return new Tickets(key, () -> System.currentTimeMillis() / 1000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] make(Path file) throws IOException {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        try (var out = Files.newByteChannel(
                file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            out.write(ByteBuffer.wrap((HexFormat.of().formatHex(key) + "\n").getBytes(StandardCharsets.US_ASCII)));
        } catch (FileAlreadyExistsException e) {
            // another server made it at the same moment: use theirs
            PrivateFiles.checkPrivateFile(file);
            return HexFormat.of()
                    .parseHex(Files.readString(file, StandardCharsets.US_ASCII).strip());
        }
        return key;
    }

    /** A new ticket for the user. */
    public String ticket(String user) {
        String plain = "PVE:" + user.replace("%", "%25").replace(":", "%3A") + ":" + timestamp();
        return plain + "::" + sign(ticketKey, plain);
    }

    /** The user a ticket was made for, if it is one of ours and not expired. */
    public Optional<String> verify(String ticket) {
        if (ticket == null) {
            return Optional.empty();
        }
        Matcher m = TICKET.matcher(ticket);
        if (!m.matches()) {
            return Optional.empty();
        }
        String plain = ticket.substring(0, ticket.indexOf("::"));
        if (!same(sign(ticketKey, plain), m.group(3)) || !fresh(m.group(2))) {
            return Optional.empty();
        }
        try {
            return Optional.of(URLDecoder.decode(m.group(1).replace("+", "%2B"), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** A new CSRF prevention token for the user. */
    public String csrfToken(String user) {
        String timestamp = timestamp();
        return timestamp + ":" + sign(csrfKey, timestamp + ":" + user);
    }

    /** Whether the token was made for the user and is not expired. */
    public boolean verifyCsrf(String user, String token) {
        if (token == null) {
            return false;
        }
        Matcher m = CSRF.matcher(token);
        return m.matches() && same(sign(csrfKey, m.group(1) + ":" + user), m.group(2)) && fresh(m.group(1));
    }

    private String timestamp() {
        return String.format(Locale.ROOT, "%08X", clock.getAsLong());
    }

    private boolean fresh(String timestamp) {
        long age = clock.getAsLong() - Long.parseLong(timestamp, 16);
        return age > MIN_AGE && age < MAX_AGE;
    }

    private static boolean same(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
    }

    private static String sign(byte[] key, String text) {
        return Base64.getEncoder().withoutPadding().encodeToString(hmac(key, text.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }
}
