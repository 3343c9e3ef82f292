package dev.vsm.config;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * pve's boolean words, in any case: {@code 1}, {@code on}, {@code yes}, {@code true} and
 * {@code 0}, {@code off}, {@code no}, {@code false}. The one parser of them, for configuration
 * values, property strings and the command line.
 */
public final class PveBoolean {
    private static final Pattern TRUE = Pattern.compile("1|on|yes|true", Pattern.CASE_INSENSITIVE);
    private static final Pattern FALSE = Pattern.compile("0|off|no|false", Pattern.CASE_INSENSITIVE);

    private PveBoolean() {}

    /** The value {@code text} names, or empty when it is no boolean word. */
    public static Optional<Boolean> parse(String text) {
        if (TRUE.matcher(text).matches()) {
            return Optional.of(Boolean.TRUE);
        }
        if (FALSE.matcher(text).matches()) {
            return Optional.of(Boolean.FALSE);
        }
        return Optional.empty();
    }
}
