package dev.vsm.exec;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Renders an argv list as one shell line, for {@code --dry-run} output and error messages. */
public final class ShellQuote {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellQuote() {}

    public static String quote(String arg) {
        if (!arg.isEmpty() && SAFE.matcher(arg).matches()) {
            return arg;
        }
        return "'" + arg.replace("'", "'\\''") + "'";
    }

    public static String join(List<String> argv) {
        return argv.stream().map(ShellQuote::quote).collect(Collectors.joining(" "));
    }
}
