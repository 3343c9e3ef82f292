package dev.vsm.cli.command;

import dev.vsm.spi.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm user passwd USER@REALM}: pveum's {@code passwd}. The password is asked twice on a
 * terminal, or read as one line from standard input (for scripts); it never appears on the
 * command line, where other users could read it.
 */
@Command(
        name = "passwd",
        description = "Set a user's password for vsm serve (made when new): asked twice on a terminal, else one line "
                + "read from standard input. Only a slow salted hash (PBKDF2) is kept, in access.json.")
public final class UserPasswdCommand extends AccessCommand {
    /** A line longer than this is not a password. */
    private static final int MAX = 1024;

    @Parameters(index = "0", paramLabel = "USER@REALM", description = "the user")
    String user;

    @Override
    void execute() {
        char[] password = read();
        try {
            access(() -> {
                accessFile().setPassword(user, password);
                return null;
            });
        } finally {
            Arrays.fill(password, '\0');
        }
        vsm().err().println("set the password of " + user);
    }

    private char[] read() {
        Console console = System.console();
        // in() is null when vsm runs as its own process: its standard input is the JVM's
        if (console != null && vsm().in() == null) {
            char[] first = console.readPassword("Enter new password: ");
            char[] second = console.readPassword("Retype new password: ");
            if (first == null || second == null || !Arrays.equals(first, second)) {
                throw StorageException.badInput("the passwords differ: nothing changed");
            }
            Arrays.fill(second, '\0');
            return first;
        }
        InputStream in = vsm().in() != null ? vsm().in() : System.in;
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try {
            int b = in.read();
            if (b == -1) {
                throw StorageException.badInput("no password on standard input: give it as one line");
            }
            for (; b != -1 && b != '\n'; b = in.read()) {
                if (line.size() >= MAX) {
                    throw StorageException.badInput("the password line is longer than %d bytes", MAX);
                }
                line.write(b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, length));
            char[] password = new char[chars.remaining()];
            chars.get(password);
            return password;
        } catch (CharacterCodingException e) {
            throw StorageException.badInput("the password is not UTF-8");
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }
}
