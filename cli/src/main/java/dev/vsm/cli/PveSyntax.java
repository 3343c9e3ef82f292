package dev.vsm.cli;

import dev.vsm.config.PveBoolean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * pvesm's option syntax, mapped onto picocli's before picocli parses: one place for every command,
 * driven by the options each command declares.
 *
 * <p>pvesm parses options with Getopt::Long and the prefix {@code (--|-)}, so {@code -content images},
 * {@code --content images} and {@code -content=images} are the same, and a boolean takes an optional
 * value ({@code -enabled}, {@code -enabled 1}, {@code -enabled 0}). Here:
 *
 * <ul>
 *   <li>{@code -name} and {@code -name=value} become {@code --name...} when the command (or an
 *       enclosing one) has an option {@code --name}, or when the command takes storage properties
 *       ({@code add}, {@code set}); short options ({@code -h}, {@code -v}, {@code -q}, {@code -V}),
 *       {@code -} (standard input), negative numbers and other values are left alone, and so is
 *       the value of an option that takes one;</li>
 *   <li>a boolean option followed by {@code 1|0|yes|no|on|off|true|false} (or given
 *       {@code =value}) takes it: a true value leaves the flag, a false one drops it;</li>
 *   <li>{@code --output-format}, which every command takes, may come before the command like the
 *       root's global options ({@code --config}, {@code --plugin-dir}, {@code --verbose}).</li>
 * </ul>
 *
 * <p>Everything after {@code --} is left as it is.
 */
final class PveSyntax {
    /** Options every command takes that may also be given before the command. */
    static final Set<String> HOISTED = Set.of("--output-format");

    private PveSyntax() {}

    /** {@code help [command ...]}: the same as {@code [command ...] --help}. */
    static String[] help(String[] args) {
        int at = Subcommands.namedIndex(args);
        if (at < 0 || !args[at].equals("help")) {
            return args;
        }
        List<String> rewritten = new ArrayList<>(List.of(args).subList(0, at));
        rewritten.addAll(List.of(args).subList(at + 1, args.length));
        rewritten.add("--help");
        return rewritten.toArray(String[]::new);
    }

    static String[] translate(CommandLine root, String[] args) {
        List<String> out = new ArrayList<>();
        List<String> hoisted = new ArrayList<>();
        CommandLine current = root;
        boolean positionalSeen = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--")) {
                out.addAll(List.of(args).subList(i, args.length));
                break;
            }
            if (!a.startsWith("-") || a.equals("-")) {
                CommandLine sub = positionalSeen ? null : current.getSubcommands().get(a);
                if (sub != null) {
                    current = sub;
                } else {
                    positionalSeen = true;
                }
                out.add(a);
                continue;
            }
            Map<String, OptionSpec> options = options(current.getCommandSpec());
            String arg = longForm(a, options, current.getCommandSpec());
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            OptionSpec option = options.get(name);
            List<String> target = out;
            if (option == null && !current.getSubcommands().isEmpty() && HOISTED.contains(name)) {
                target = hoisted; // before the command: given to the command once it is known
            }
            if (option != null && option.typeInfo().isBoolean() && option.arity().max() == 0) {
                String value = eq < 0 ? (i + 1 < args.length ? args[i + 1].toLowerCase(Locale.ROOT) : null)
                        : arg.substring(eq + 1).toLowerCase(Locale.ROOT);
                Optional<Boolean> word = value == null ? Optional.empty() : PveBoolean.parse(value);
                if (word.isPresent()) {
                    if (eq < 0) {
                        i++;
                    }
                    if (word.get()) {
                        target.add(name);
                    }
                    continue;
                }
                target.add(arg);
                continue;
            }
            target.add(arg);
            boolean takesValue = option != null ? option.arity().max() > 0 : target == hoisted;
            if (takesValue && eq < 0 && i + 1 < args.length) {
                target.add(args[++i]);
            }
        }
        int end = out.indexOf("--");
        out.addAll(end < 0 ? out.size() : end, hoisted);
        return out.toArray(String[]::new);
    }

    /** {@code -name[=value]} as {@code --name[=value]} when that is what the command means by it. */
    private static String longForm(String a, Map<String, OptionSpec> options, CommandSpec spec) {
        if (a.startsWith("--") || a.length() < 3 || !Character.isLetter(a.charAt(1))) {
            return a;
        }
        int eq = a.indexOf('=');
        String name = eq < 0 ? a : a.substring(0, eq);
        if (options.containsKey(name)) {
            return a; // a short option of its own
        }
        String dashed = "-" + a;
        String dashedName = "-" + name;
        boolean known = options.containsKey(dashedName) || HOISTED.contains(dashedName);
        boolean property = !spec.unmatchedArgsBindings().isEmpty();
        return known || property ? dashed : a;
    }

    private static Map<String, OptionSpec> options(CommandSpec spec) {
        Map<String, OptionSpec> byName = new HashMap<>();
        for (OptionSpec o : spec.options()) {
            for (String n : o.names()) {
                byName.put(n, o);
            }
        }
        return byName;
    }
}
