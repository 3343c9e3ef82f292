package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The directory of drop-in plugins: {@code --plugin-dir DIR}, else {@code $VSM_PLUGIN_DIR}, else
 * the configuration's top-level {@code plugin-dir}, else {@value #DEFAULT}.
 *
 * <p>Each {@code *.jar} directly in it is one plugin; each sub-directory is one plugin whose class
 * path is every {@code *.jar} in it (a plugin with its libraries). Other files, and names
 * starting with a dot, are ignored. A missing default directory means no drop-in plugins; a
 * missing directory that was asked for ({@link #explicit()}) is worth a warning, as it is most
 * likely a typo.
 *
 * <p>The directory, each sub-directory and each jar must belong to root or to the caller, and
 * no one else may write them or a directory above them (see {@link FileTrust}): a directory
 * that fails loads nothing, a jar or sub-directory that fails is skipped, each with one warning
 * that names it and the fix. Nothing of theirs is opened as a class path, so none of their
 * code runs.
 *
 * @param dir      the directory
 * @param explicit whether it was asked for (option, environment or configuration) rather than the default
 * @param origin   how it was chosen, for messages ({@code --plugin-dir}, {@code $VSM_PLUGIN_DIR}, ...)
 */
public record PluginDirectory(Path dir, boolean explicit, String origin) {
    public static final Path DEFAULT = Path.of("/usr/share/vsm/plugins");
    public static final String ENV = "VSM_PLUGIN_DIR";

    public PluginDirectory {
        dir = requireNonNull(dir, "dir").toAbsolutePath().normalize();
        requireNonNull(origin, "origin");
    }

    /**
     * Chooses the directory.
     *
     * @param option    the {@code --plugin-dir} argument, or null
     * @param env       the environment ({@value #ENV})
     * @param configKey the configuration's {@code plugin-dir}, asked for only when neither of the
     *                  above is set (reading it reads the configuration file)
     */
    public static PluginDirectory resolve(Path option, Map<String, String> env, Supplier<Optional<Path>> configKey) {
        if (option != null) {
            return new PluginDirectory(option, true, "--plugin-dir");
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new PluginDirectory(Path.of(fromEnv), true, "$" + ENV);
        }
        Optional<Path> fromConfig = configKey.get();
        if (fromConfig.isPresent()) {
            return new PluginDirectory(fromConfig.get(), true, "plugin-dir in the configuration");
        }
        return new PluginDirectory(DEFAULT, false, "default");
    }

    /**
     * The plugins in the directory, in name order.
     *
     * @param warnings told, in one line, when an explicitly chosen directory is missing or the
     *                 directory cannot be read
     */
    public List<PluginBundle> scan(Consumer<String> warnings) {
        List<Path> entries = new ArrayList<>();
        try {
            Optional<FileTrust.Problem> problem = FileTrust.untrusted(dir);
            if (problem.isPresent()) {
                warnings.accept("plugin directory " + dir + " (" + origin + ") not used: "
                        + problem.get().describe() + " - no drop-in plugins loaded");
                return List.of();
            }
        } catch (IOException e) {
            // missing or unreadable: told below
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(entries::add);
        } catch (NoSuchFileException e) {
            if (explicit) {
                warnings.accept("plugin directory " + dir + " (" + origin
                        + ") does not exist - no drop-in plugins loaded;" + " create it or fix the path");
            }
            return List.of();
        } catch (NotDirectoryException e) {
            warnings.accept(
                    "plugin directory " + dir + " (" + origin + ") is not a directory - no drop-in plugins loaded");
            return List.of();
        } catch (IOException e) {
            warnings.accept(
                    "cannot read plugin directory " + dir + ": " + e.getMessage() + " - no drop-in plugins loaded");
            return List.of();
        }
        entries.sort(Comparator.comparing(p -> p.getFileName().toString()));
        List<PluginBundle> bundles = new ArrayList<>();
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (name.startsWith(".")) {
                continue;
            }
            if (Files.isDirectory(entry)) {
                if (trusted(entry, warnings)) {
                    jarsIn(entry, warnings).ifPresent(jars -> bundles.add(new PluginBundle(entry, jars)));
                }
            } else if (isJar(entry) && trusted(entry, warnings)) {
                bundles.add(new PluginBundle(entry, List.of(entry)));
            }
        }
        return bundles;
    }

    /** The jars of a plugin's sub-directory, in name order; empty (and a warning) when it cannot be read. */
    private static Optional<List<Path>> jarsIn(Path subdir, Consumer<String> warnings) {
        List<Path> jars = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(subdir)) {
            for (Path p : stream) {
                if (isJar(p) && !p.getFileName().toString().startsWith(".")) {
                    jars.add(p);
                }
            }
            for (Path jar : jars) {
                Optional<FileTrust.Problem> problem = FileTrust.untrusted(jar);
                if (problem.isPresent()) {
                    warnings.accept(notLoaded(subdir, problem.get()));
                    return Optional.empty();
                }
            }
        } catch (IOException e) {
            warnings.accept("storage plugin " + subdir + " not loaded: cannot read the directory (" + e.getMessage()
                    + ") - check its permissions");
            return Optional.empty();
        }
        jars.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return Optional.of(jars);
    }

    /**
     * Whether a jar or sub-directory may be loaded: it and every directory above it belong to root
     * or to the caller and no one else may write them ({@link FileTrust}, as OpenSSH's
     * {@code StrictModes}); otherwise one warning names it and the fix. Its code would run as
     * the caller, often root, the moment a class of it is loaded, so this is decided before.
     */
    private static boolean trusted(Path entry, Consumer<String> warnings) {
        try {
            Optional<FileTrust.Problem> problem = FileTrust.untrusted(entry);
            problem.ifPresent(p -> warnings.accept(notLoaded(entry, p)));
            return problem.isEmpty();
        } catch (IOException e) {
            warnings.accept(
                    "storage plugin " + entry + " not loaded: cannot check who may change it (" + e.getMessage() + ")");
            return false;
        }
    }

    private static String notLoaded(Path entry, FileTrust.Problem problem) {
        return "storage plugin " + entry + " not loaded: " + problem.describe();
    }

    private static boolean isJar(Path p) {
        return p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p);
    }
}
