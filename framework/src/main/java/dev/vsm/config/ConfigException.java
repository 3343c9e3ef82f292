package dev.vsm.config;

import dev.vsm.spi.StorageException;
import java.util.List;

/**
 * A configuration (file or edit) that was refused: {@link Kind#BAD_INPUT}, nothing was changed.
 * The message is the first problem's line, with a count of the others; {@link #problems()} has
 * them all, for a caller that wants to print every one.
 */
public final class ConfigException extends StorageException {
    private static final long serialVersionUID = 1L;
    private final transient List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        this("", problems);
    }

    public ConfigException(ConfigProblem problem) {
        this(List.of(problem));
    }

    private ConfigException(String prefix, List<ConfigProblem> problems) {
        super(Kind.BAD_INPUT, prefix + message(problems));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }

    /** The same problems, the message starting with {@code prefix} (pve's {@code update storage failed: }). */
    ConfigException prefixed(String prefix) {
        return new ConfigException(prefix, problems);
    }

    private static String message(List<ConfigProblem> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("no problems");
        }
        String first = problems.get(0).describe();
        int more = problems.size() - 1;
        return more == 0 ? first : first + " (and " + more + " more problem" + (more == 1 ? "" : "s") + ")";
    }
}
