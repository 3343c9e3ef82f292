package dev.vsm.server.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Who a request is, and what it may do, from one reading of the {@link AccessFile}: pve's API
 * token header and pve's ACL rules on {@code /}, {@code /storage} and {@code /storage/ID}.
 */
public final class Permissions {
    /** pve's superuser: every privilege everywhere. */
    static final String ROOT = "root@pam";

    private static final String PREFIX = "PVEAPIToken=";
    private static final String NO_SUCH_TOKEN = AccessFile.sha256("no such token");

    private final AccessFile.Contents contents;
    private final String subject;

    private Permissions(AccessFile.Contents contents, String subject) {
        this.contents = contents;
        this.subject = subject;
    }

    /**
     * The token an {@code Authorization: PVEAPIToken=USER@REALM!NAME=SECRET} header names, if
     * its secret is right; empty for anything else. The secret's hash is compared in constant
     * time, and an unknown token costs the same as a wrong secret.
     */
    public static Optional<Permissions> authenticate(AccessFile.Contents contents, String header) {
        if (header == null || !header.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String value = header.substring(PREFIX.length());
        int eq = value.lastIndexOf('=');
        if (eq < 0) {
            return Optional.empty();
        }
        String id = value.substring(0, eq);
        AccessFile.Token token = contents.tokens().get(id);
        String expected = token == null ? NO_SUCH_TOKEN : token.sha256();
        boolean same = MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII),
                AccessFile.sha256(value.substring(eq + 1)).getBytes(StandardCharsets.US_ASCII));
        return same && token != null ? Optional.of(new Permissions(contents, id)) : Optional.empty();
    }

    /**
     * A user's password checked against the file ({@code POST /access/ticket}); an unknown user
     * costs as much as a wrong password.
     */
    public static Optional<Permissions> login(AccessFile.Contents contents, String user, char[] password) {
        AccessFile.User known = contents.users().get(user);
        return Passwords.matches(known, password) ? Optional.of(new Permissions(contents, user)) : Optional.empty();
    }

    /** The user a valid ticket names, while the user still has a password in the file. */
    public static Optional<Permissions> ofTicketUser(AccessFile.Contents contents, String user) {
        return contents.users().containsKey(user) ? Optional.of(new Permissions(contents, user)) : Optional.empty();
    }

    /** Whether the request was made with a token (not with a ticket). */
    public boolean isToken() {
        return subject.contains("!");
    }

    /** The user or token the request was made as. */
    public String subject() {
        return subject;
    }

    /**
     * Whether the subject is pve's superuser: {@code root@pam}, or a token of it without privilege
     * separation (which holds its user's privileges).
     */
    public boolean isRoot() {
        if (subject.equals(ROOT)) {
            return true;
        }
        AccessFile.Token token = contents.tokens().get(subject);
        return subject.startsWith(ROOT + "!") && token != null && !token.privsep();
    }

    /** Whether the subject holds any of {@code privileges} on {@code path}. */
    public boolean any(String path, Set<Privilege> privileges) {
        Set<Privilege> held = privileges(path);
        return privileges.stream().anyMatch(held::contains);
    }

    /** The privileges the subject holds on {@code path}. */
    public Set<Privilege> held(String path) {
        return privileges(path);
    }

    /**
     * pve's rule: a token with privilege separation has its own grants, bounded by its user's;
     * without it, its user's. A grant on a path counts there; on a parent path, when it propagates;
     * the nearest grant wins.
     */
    Set<Privilege> privileges(String path) {
        int bang = subject.indexOf('!');
        if (bang < 0) {
            return ofSubject(subject, path);
        }
        String user = subject.substring(0, bang);
        AccessFile.Token token = contents.tokens().get(subject);
        if (token == null || !token.privsep()) {
            return ofSubject(user, path);
        }
        Set<Privilege> own = ofSubject(subject, path);
        own.retainAll(ofSubject(user, path));
        return own;
    }

    private Set<Privilege> ofSubject(String who, String path) {
        if (who.equals(ROOT)) {
            return EnumSet.allOf(Privilege.class);
        }
        boolean exact = true;
        for (String p = path; p != null; p = parent(p)) {
            for (AccessFile.Grant g : contents.grants()) {
                if (g.subject().equals(who) && g.path().equals(p) && (exact || g.propagate())) {
                    return EnumSet.copyOf(g.privileges());
                }
            }
            exact = false;
        }
        return EnumSet.noneOf(Privilege.class);
    }

    private static String parent(String path) {
        if (path.equals("/")) {
            return null;
        }
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }
}
