package dev.vsm.env;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The environment variables vsm works with, read from the process once ({@link #system()}) or
 * given by whoever embeds vsm ({@link #of}). This is the only class that calls
 * {@link System#getenv()}: every setting from the environment ({@code VSM_CONFIG},
 * {@code VSM_LOCK_DIR}, {@code VSM_LOCK_TIMEOUT}, {@code VSM_NODE}, {@code VSM_QEMU_IMG}, ...) is
 * taken from an instance of it, and the commands vsm runs get exactly its variables (plus the
 * ones a caller adds with {@link #with}).
 */
public final class Environment {
    private static volatile Environment system;

    private final Map<String, String> variables;

    private Environment(Map<String, String> variables) {
        this.variables = Map.copyOf(variables);
    }

    /** This process's environment, read on first use. */
    public static Environment system() {
        Environment env = system;
        if (env == null) {
            env = new Environment(System.getenv());
            system = env;
        }
        return env;
    }

    /** Exactly these variables (an embedder's or a test's own). */
    public static Environment of(Map<String, String> variables) {
        return new Environment(requireNonNull(variables, "variables"));
    }

    /** These variables with {@code overrides} set over them. */
    public Environment with(Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return this;
        }
        Map<String, String> merged = new HashMap<>(variables);
        merged.putAll(overrides);
        return new Environment(merged);
    }

    /** These variables with {@code name} set to {@code value}. */
    public Environment with(String name, String value) {
        return with(Map.of(name, value));
    }

    /** A variable's value, null when it is not set. */
    public String get(String name) {
        return variables.get(name);
    }

    /** A variable's value when it is set and not blank. */
    public Optional<String> nonBlank(String name) {
        return Optional.ofNullable(variables.get(name)).filter(v -> !v.isBlank());
    }

    /** All variables, unmodifiable: what a command vsm runs gets as its environment. */
    public Map<String, String> asMap() {
        return variables;
    }
}
