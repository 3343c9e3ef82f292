package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import java.nio.file.Path;
import java.util.Map;

/**
 * Which configuration file vsm uses, and where the built-in default keeps its {@code local} storage.
 *
 * <p>The file is {@code --config FILE}, else {@code $VSM_CONFIG}, else {@code /etc/vsm/storage.yaml}.
 * What happens when it does not exist depends on how it was chosen:
 *
 * <ul>
 *   <li>the default path: vsm runs on the built-in default (a {@code dir} storage {@code local} in
 *       {@code ${XDG_DATA_HOME:-$HOME/.local/share}/vsm/local}, every content type). Nothing is
 *       written until a command changes the configuration; the first change writes the default
 *       together with the change. This is pvesm's behaviour (there is always a {@code local}), and
 *       lets a fresh install work at once.</li>
 *   <li>{@code --config FILE} or {@code $VSM_CONFIG} ({@link #explicit()}), the same for both: a
 *       command that only reads fails with {@code config file '<f>' does not exist} (exit 2), as a
 *       typo in a path the user named should not silently show a different configuration; a
 *       command that changes the configuration creates the file with just that change, no default
 *       {@code local} (as {@code git config --file} does).</li>
 * </ul>
 *
 * @param file            the configuration file
 * @param explicit        whether it was named, with {@code --config} or {@code $VSM_CONFIG}
 * @param defaultLocalDir the path of the built-in default's {@code local} storage
 */
public record ConfigLocation(Path file, boolean explicit, Path defaultLocalDir) {
    public static final Path DEFAULT_FILE = Path.of("/etc/vsm/storage.yaml");
    public static final String ENV = "VSM_CONFIG";

    public ConfigLocation {
        file = requireNonNull(file, "file").toAbsolutePath().normalize();
        defaultLocalDir = requireNonNull(defaultLocalDir, "defaultLocalDir")
                .toAbsolutePath()
                .normalize();
    }

    /** From {@code --config} (null when not given) and {@code env}. */
    public static ConfigLocation resolve(Path configOption, Environment env) {
        return resolve(configOption, env.asMap(), Path.of(System.getProperty("user.home")));
    }

    /**
     * @param configOption the {@code --config} argument, or null
     * @param env          the environment ({@code VSM_CONFIG}, {@code XDG_DATA_HOME}, {@code HOME})
     * @param userHome     the home directory when {@code $HOME} is not set
     */
    public static ConfigLocation resolve(Path configOption, Map<String, String> env, Path userHome) {
        Path localDir = dataHome(env, userHome).resolve("vsm").resolve("local");
        if (configOption != null) {
            return new ConfigLocation(configOption, true, localDir);
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return new ConfigLocation(Path.of(fromEnv), true, localDir);
        }
        return new ConfigLocation(DEFAULT_FILE, false, localDir);
    }

    /** {@code $XDG_DATA_HOME} when set to an absolute path (the XDG rule), else {@code $HOME/.local/share}. */
    private static Path dataHome(Map<String, String> env, Path userHome) {
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg);
        }
        String home = env.get("HOME");
        Path base = home != null && !home.isBlank() ? Path.of(home) : userHome;
        return base.resolve(".local").resolve("share");
    }
}
