package dev.vsm.server.access;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Passwords as the access file keeps them: PBKDF2-HMAC-SHA256 (the JDK's), a random 16-byte salt
 * per password, {@link #ITERATIONS} rounds (the count is kept with each hash, so it can rise
 * later without making old hashes unusable). Passwords are chosen by people and may be guessed:
 * a slow hash makes each guess against a stolen file cost as much as a login.
 */
final class Passwords {
    /** OWASP's figure for PBKDF2-HMAC-SHA256 (2023): 600,000 rounds. */
    static final int ITERATIONS = 600_000;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();
    /** What an unknown user's password is checked against, so that it costs as much as a known one's. */
    private static final AccessFile.User NOBODY =
            new AccessFile.User("nobody@vsm", ITERATIONS, "00000000000000000000000000000000", "0".repeat(64));

    private Passwords() {}

    static AccessFile.User hash(String user, char[] password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return new AccessFile.User(
                user, ITERATIONS, HEX.formatHex(salt), HEX.formatHex(pbkdf2(password, salt, ITERATIONS)));
    }

    /** Whether the password is the user's; null (no such user) costs the same and is false. */
    static boolean matches(AccessFile.User user, char[] password) {
        AccessFile.User u = user == null ? NOBODY : user;
        byte[] got = pbkdf2(password, HEX.parseHex(u.salt()), u.iterations());
        boolean same = MessageDigest.isEqual(got, HEX.parseHex(u.hash()));
        return same && user != null;
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(spec)
                    .getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no PBKDF2WithHmacSHA256", e);
        } finally {
            spec.clearPassword();
        }
    }
}
