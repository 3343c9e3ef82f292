package dev.vsm.server.access;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The API's users, tokens and grants: one JSON file beside the configuration ({@code access.json}),
 * made and changed only by vsm's {@code token} and {@code acl} commands, readable and writable by
 * its owner alone (the user vsm runs as, root). A file that others may read or write, or that
 * belongs to someone else, is refused: it holds what lets a client in.
 *
 * <p>A token's secret is a random UUID (pve's form, 122 random bits) shown once; the file keeps
 * only its SHA-256. A slow hash (PBKDF2) guards guessable passwords; a secret of 122 random bits
 * cannot be guessed, so a fast hash loses nothing and keeps each request's check cheap.
 */
public final class AccessFile {
    /** pve's user id, {@code name@realm}; vsm also leaves {@code !} and {@code =} out of the name. */
    static final Pattern USER_ID = Pattern.compile("[^\\s:/@!=]{1,64}@[A-Za-z][A-Za-z0-9._-]{1,31}");
    /** pve's token name. */
    static final Pattern TOKEN_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9._-]{1,63}");

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;

    public AccessFile(Path file) {
        this.file = file.toAbsolutePath();
    }

    /** {@code access.json} in the directory of the configuration file. */
    public static AccessFile besideConfig(Path configFile) {
        Path dir = configFile.toAbsolutePath().getParent();
        return new AccessFile(dir.resolve("access.json"));
    }

    public Path file() {
        return file;
    }

    /** A token, as the file keeps it. */
    public record Token(String id, String sha256, boolean privsep) {}

    /** A grant of privileges on a path to a user or token. */
    public record Grant(String path, String subject, Set<Privilege> privileges, boolean propagate) {}

    /**
     * A user who may log in with a password ({@code POST /access/ticket}): the file keeps the
     * password's PBKDF2-HMAC-SHA256 with its salt and iteration count, never the password.
     */
    public record User(String id, int iterations, String salt, String hash) {}

    /** What the file holds. */
    public record Contents(Map<String, Token> tokens, List<Grant> grants, Map<String, User> users) {
        static Contents empty() {
            return new Contents(new TreeMap<>(), new ArrayList<>(), new TreeMap<>());
        }
    }

    /** The file's contents; none when it does not exist. Refused (as bad input) when others may read or change it. */
    public Contents read() {
        byte[] bytes;
        try {
            // a directory others cannot change: the file checked is the file read
            PrivateFiles.checkDirectory(file.getParent());
            PrivateFiles.checkPrivateFile(file);
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Contents.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return parse(bytes);
    }

    private Contents parse(byte[] bytes) {
        Contents c = Contents.empty();
        try {
            JsonNode root = JSON.readTree(bytes);
            for (JsonNode t : root.path("tokens")) {
                String id = t.path("id").asText();
                String hash = t.path("sha256").asText();
                checkTokenId(id);
                if (!hash.matches("[0-9a-f]{64}")) {
                    throw new AccessException(file + ": token " + id + " has no valid sha256");
                }
                c.tokens().put(id, new Token(id, hash, t.path("privsep").asBoolean(true)));
            }
            for (JsonNode g : root.path("acl")) {
                Set<Privilege> privs = EnumSet.noneOf(Privilege.class);
                for (JsonNode p : g.path("privs")) {
                    privs.add(privilege(p.asText()));
                }
                String path = g.path("path").asText();
                String subject = g.path("subject").asText();
                checkPath(path);
                checkSubject(subject);
                c.grants()
                        .add(new Grant(path, subject, privs, g.path("propagate").asBoolean(true)));
            }
            for (JsonNode u : root.path("users")) {
                String id = u.path("id").asText();
                checkUserId(id);
                int iterations = u.path("iterations").asInt();
                String salt = u.path("salt").asText();
                String hash = u.path("pbkdf2").asText();
                if (iterations < 1 || !salt.matches("[0-9a-f]{32}") || !hash.matches("[0-9a-f]{64}")) {
                    throw new AccessException(file + ": user " + id + " has no valid password hash");
                }
                c.users().put(id, new User(id, iterations, salt, hash));
            }
        } catch (IOException e) {
            throw new AccessException(file + " is not vsm's access file: " + e.getMessage());
        }
        return c;
    }

    private static byte[] render(Contents c) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode tokens = root.putArray("tokens");
        c.tokens()
                .values()
                .forEach(t -> tokens.addObject()
                        .put("id", t.id())
                        .put("sha256", t.sha256())
                        .put("privsep", t.privsep()));
        ArrayNode acl = root.putArray("acl");
        for (Grant g : c.grants()) {
            ObjectNode n = acl.addObject()
                    .put("path", g.path())
                    .put("subject", g.subject())
                    .put("propagate", g.propagate());
            ArrayNode privs = n.putArray("privs");
            g.privileges().forEach(p -> privs.add(p.pveName()));
        }
        ArrayNode users = root.putArray("users");
        c.users()
                .values()
                .forEach(u -> users.addObject()
                        .put("id", u.id())
                        .put("iterations", u.iterations())
                        .put("salt", u.salt())
                        .put("pbkdf2", u.hash()));
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    }

    /** Changes the file under a lock, atomically (a temporary file of mode 0600, fsync, rename). */
    public Contents update(UnaryOperator<Contents> change) {
        try {
            PrivateFiles.checkDirectory(file.getParent());
            Path lockFile = file.resolveSibling("." + file.getFileName() + ".lock");
            try (FileChannel lock = FileChannel.open(
                    lockFile,
                    Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                lock.lock(); // released when the channel closes
                Contents changed = change.apply(read());
                Path tmp = file.resolveSibling("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
                try (FileChannel out = FileChannel.open(
                        tmp,
                        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                    out.write(ByteBuffer.wrap(render(changed)));
                    out.force(true);
                } catch (FileAlreadyExistsException e) {
                    throw new AccessException(tmp + " exists: remove it");
                }
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return changed;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Makes a token and returns its secret (to be shown once). An existing token is refused. */
    public String addToken(String user, String name, boolean privsep) {
        String id = tokenId(user, name);
        String secret = UUID.randomUUID().toString();
        update(c -> {
            if (c.tokens().containsKey(id)) {
                throw new AccessException("token '" + id + "' already exists");
            }
            c.tokens().put(id, new Token(id, sha256(secret), privsep));
            return c;
        });
        return secret;
    }

    /** Removes a token and its grants. */
    public void removeToken(String user, String name) {
        String id = tokenId(user, name);
        update(c -> {
            if (c.tokens().remove(id) == null) {
                throw new AccessException("no such token '" + id + "'");
            }
            c.grants().removeIf(g -> g.subject().equals(id));
            return c;
        });
    }

    /** Removes every grant on {@code path} (a storage removed from the configuration: pve's {@code remove_storage_access}). */
    public void removePath(String path) {
        if (read().grants().stream().anyMatch(g -> g.path().equals(path))) {
            update(c -> {
                c.grants().removeIf(g -> g.path().equals(path));
                return c;
            });
        }
    }

    /** Sets a user's password (making the user when new): its PBKDF2 hash with a new random salt is kept. */
    public void setPassword(String user, char[] password) {
        checkUserId(user);
        if (password.length < 8) {
            throw new AccessException("the password is too short (8 characters at least, as pve asks)");
        }
        if (password.length > 256) {
            throw new AccessException("the password is too long (256 characters at most)");
        }
        User hashed = Passwords.hash(user, password);
        update(c -> {
            c.users().put(user, hashed);
            return c;
        });
    }

    /** Removes a user's password, its tokens and every grant to it or them. */
    public void removeUser(String user) {
        checkUserId(user);
        update(c -> {
            boolean had = c.users().remove(user) != null;
            boolean tokens = c.tokens().keySet().removeIf(id -> id.startsWith(user + "!"));
            boolean grants = c.grants()
                    .removeIf(g -> g.subject().equals(user) || g.subject().startsWith(user + "!"));
            if (!had && !tokens && !grants) {
                throw new AccessException("no such user '" + printable(user) + "'");
            }
            return c;
        });
    }

    static void checkUserId(String user) {
        if (!USER_ID.matcher(user).matches()) {
            throw new AccessException("invalid user id '" + printable(user) + "' (use name@realm)");
        }
    }

    /**
     * pveum's {@code acl modify}: gives each subject the privileges on the path (added to what it
     * has there), or with {@code delete} takes them away (a grant left with none is removed).
     */
    public void modifyAcl(
            String path, List<String> subjects, Set<Privilege> privileges, boolean propagate, boolean delete) {
        checkPath(path);
        subjects.forEach(AccessFile::checkSubject);
        update(c -> {
            for (String subject : subjects) {
                if (subject.contains("!") && !c.tokens().containsKey(subject)) {
                    throw new AccessException("no such token '" + subject + "'");
                }
                Optional<Grant> old = c.grants().stream()
                        .filter(g -> g.path().equals(path) && g.subject().equals(subject))
                        .findFirst();
                Set<Privilege> privs = EnumSet.noneOf(Privilege.class);
                old.ifPresent(g -> privs.addAll(g.privileges()));
                if (delete) {
                    privs.removeAll(privileges);
                } else {
                    privs.addAll(privileges);
                }
                old.ifPresent(c.grants()::remove);
                if (!privs.isEmpty()) {
                    c.grants().add(new Grant(path, subject, privs, propagate));
                }
            }
            return c;
        });
    }

    /** {@code user@realm!name}, each part checked. */
    public static String tokenId(String user, String name) {
        if (!USER_ID.matcher(user).matches()) {
            throw new AccessException("invalid user id '" + printable(user) + "' (use name@realm)");
        }
        if (!TOKEN_NAME.matcher(name).matches()) {
            throw new AccessException(
                    "invalid token name '" + printable(name) + "' (a letter, then letters, digits, '.', '-', '_')");
        }
        return user + "!" + name;
    }

    static void checkTokenId(String id) {
        int bang = id.indexOf('!');
        if (bang < 0) {
            throw new AccessException("invalid token id '" + printable(id) + "' (use user@realm!name)");
        }
        tokenId(id.substring(0, bang), id.substring(bang + 1));
    }

    static void checkSubject(String subject) {
        if (subject.contains("!")) {
            checkTokenId(subject);
        } else if (!USER_ID.matcher(subject).matches()) {
            throw new AccessException("invalid user id '" + printable(subject) + "' (use name@realm)");
        }
    }

    /** The paths a grant may name: {@code /}, {@code /storage}, {@code /storage/ID}. */
    public static void checkPath(String path) {
        if (path.equals("/") || path.equals("/storage")) {
            return;
        }
        if (path.startsWith("/storage/")) {
            try {
                VolumeId.checkStorageId(path.substring("/storage/".length()));
                return;
            } catch (StorageException e) {
                throw new AccessException("invalid ACL path '" + printable(path) + "': " + e.getMessage());
            }
        }
        throw new AccessException("invalid ACL path '" + printable(path) + "' (use /, /storage or /storage/ID)");
    }

    public static Privilege privilege(String name) {
        return Privilege.fromPveName(name)
                .orElseThrow(
                        () -> new AccessException(
                                "unknown privilege '" + printable(name)
                                        + "' (use Datastore.Audit, Datastore.Allocate, Datastore.AllocateSpace, Datastore.AllocateTemplate)"));
    }

    static String sha256(String secret) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(80).forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }
}
