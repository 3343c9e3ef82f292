package dev.vsm.cli;

import dev.vsm.spi.StorageException;
import dev.vsm.trust.FileTrust;
import java.nio.file.Path;

/**
 * The launcher's check, as root, of the files that the JVM's options from the environment name
 * (an agent's jar, a property's file): each must pass {@link FileTrust}'s rule, the one that keeps
 * plugin jars, before a JVM that would load it starts. Arguments: triples of how the option is
 * named ({@code VSM_JAVA_OPTS: '-javaagent:/x.jar'}), its path and its variable. Exit 0 when all
 * pass, else one line on stderr and exit 2.
 */
public final class TrustedPaths {
    private TrustedPaths() {}

    public static void main(String[] args) {
        try {
            for (int i = 0; i + 2 < args.length; i += 3) {
                FileTrust.requireTrustedAsRoot(Path.of(args[i + 1]), args[i], "or unset " + args[i + 2]);
            }
        } catch (StorageException | java.nio.file.InvalidPathException e) {
            System.err.println("vsm: " + e.getMessage());
            System.exit(2);
        }
    }
}
