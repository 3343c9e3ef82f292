package dev.vsm.config;

import java.util.regex.Pattern;

/**
 * Plain scalars that a YAML 1.1 reader (PyYAML, SnakeYAML 1.x, many tools) would not read as
 * the string vsm means: {@code yes no on off y n} and friends as booleans, {@code 0777} as octal,
 * {@code 1:20} as sexagesimal, {@code 2024-01-01} as a date. vsm reads YAML 1.2, where these are
 * strings, but quotes them when writing so the file means the same to every reader.
 */
final class LegacyYamlQuoting {
    private static final Pattern AMBIGUOUS = Pattern.compile(String.join(
            "|",
            // booleans
            "y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
            // null
            "~|null|Null|NULL|",
            // integers: binary, octal, decimal with _, hex, sexagesimal
            "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+",
            // floats
            "[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)",
            // timestamps (their start is enough to make a reader try)
            "[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?([Tt ].*)?",
            // merge and value keys
            "<<|="));

    private LegacyYamlQuoting() {}

    /** Whether {@code text} must be quoted so a YAML 1.1 reader sees a string. */
    static boolean needsQuotes(String text) {
        return AMBIGUOUS.matcher(text).matches();
    }
}
