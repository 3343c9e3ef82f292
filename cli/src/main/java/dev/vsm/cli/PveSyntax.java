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

    /**
     * pvesm's aliases of its scans ({@code lvmscan} is {@code scan lvm}, and so on). vsm scans only
     * what its storage types use (lvm, lvmthin); {@code nfsscan} and the others reach {@code scan},
     * which names what it can scan.
     */
    private static final Map<String, String> SCAN_ALIASES = Map.of(
            "lvmscan", "lvm",
            "lvmthinscan", "lvmthin",
            "nfsscan", "nfs",
            "cifsscan", "cifs",
            "iscsiscan", "iscsi",
            "zfsscan", "zfs");

    /** {@code lvmscan ...}: the same as {@code scan lvm ...}, as pvesm's aliases. */
    static String[] scanAlias(String[] args) {
        int at = Subcommands.namedIndex(args);
        if (at < 0 || !SCAN_ALIASES.containsKey(args[at])) {
            return args;
        }
        List<String> rewritten = new ArrayList<>(List.of(args).subList(0, at));
        rewritten.add("scan");
        rewritten.add(SCAN_ALIASES.get(args[at]));
        rewritten.addAll(List.of(args).subList(at + 1, args.length));
        return rewritten.toArray(String[]::new);
    }

    /** The stream formats pvesm knows ({@code $KNOWN_EXPORT_FORMATS} in pve's Storage.pm). */
    private static final Set<String> STREAM_FORMATS =
            Set.of("raw+size", "tar+size", "qcow2+size", "vmdk+size", "zfs", "btrfs");

    /**
     * {@code import <volid> <format> <file>} is pvesm's stream import, vsm's {@code import-stream}:
     * vsm's own {@code import <storage> <vmid> <source>} never has a colon in its first argument
     * nor a stream format as its second, so a script's {@code pvesm import vol raw+size -} (as
     * pve's storage_migrate runs it) reaches the stream import.
     */
    static String[] streamImport(String[] args) {
        int at = Subcommands.namedIndex(args);
        if (at < 0
                || at + 2 >= args.length
                || !args[at].equals("import")
                || !args[at + 1].contains(":")
                || !STREAM_FORMATS.contains(args[at + 2])) {
            return args;
        }
        String[] rewritten = args.clone();
        rewritten[at] = "import-stream";
        return rewritten;
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
                if (!positionalSeen
                        && current != root
                        && !current.getSubcommands().isEmpty()) {
                    a = Subcommands.expand(a, current.getSubcommands().keySet()); // scan lvmt
                }
                CommandLine sub =
                        positionalSeen ? null : current.getSubcommands().get(a);
                if (sub != null) {
                    current = sub;
                } else {
                    positionalSeen = true;
                }
                out.add(a);
                continue;
            }
            Map<String, OptionSpec> options = options(current.getCommandSpec());
            String arg = abbreviation(longForm(a, options, current.getCommandSpec()), options, current);
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            OptionSpec option = options.get(name);
            List<String> target = out;
            if (option == null && !current.getSubcommands().isEmpty() && HOISTED.contains(name)) {
                target = hoisted; // before the command: given to the command once it is known
            }
            if (option != null
                    && option.typeInfo().isBoolean()
                    && option.arity().max() == 0) {
                String value = eq < 0
                        ? (i + 1 < args.length ? args[i + 1].toLowerCase(Locale.ROOT) : null)
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
            boolean optionalValue = option != null && option.arity().min() == 0;
            if (takesValue && eq < 0 && i + 1 < args.length && !(optionalValue && looksLikeOption(args[i + 1]))) {
                target.add(args[++i]);
            }
        }
        int end = out.indexOf("--");
        out.addAll(end < 0 ? out.size() : end, hoisted);
        return out.toArray(String[]::new);
    }

    /**
     * Getopt::Long's test for an option whose value is optional ({@code :s}): the next argument is
     * its value unless it is {@code --} or starts with a dash and has more after it.
     */
    private static boolean looksLikeOption(String next) {
        return next.equals("--") || next.startsWith("-") && next.length() > 1;
    }

    /**
     * {@code --name[=value]} with {@code name} spelled as Getopt::Long (which pvesm's CLIHandler
     * uses with its defaults, {@code auto_abbrev} and {@code ignore_case}) takes it: the option of
     * that name in any case, else the one option of the command that starts with it
     * ({@code --with} is {@code --with-snapshots}). More than one such option is bad input, as in
     * pvesm ({@code Option snap is ambiguous (snapshot, snapshot-list)}). A name no option starts
     * with is left for picocli to judge. {@code add} and {@code set} take their own options by their
     * full names only: there a name may also start a storage property's, which only the type's
     * schema knows (the properties' abbreviations are resolved against it, in PropertyArgs).
     */
    static String abbreviation(String arg, Map<String, OptionSpec> options, CommandLine current) {
        if (!arg.startsWith("--") || arg.length() < 3) {
            return arg;
        }
        int eq = arg.indexOf('=');
        String name = eq < 0 ? arg : arg.substring(0, eq);
        String rest = eq < 0 ? "" : arg.substring(eq);
        if (options.containsKey(name) || HOISTED.contains(name)) {
            return arg;
        }
        if (!current.getCommandSpec().unmatchedArgsBindings().isEmpty()) {
            return arg; // add and set: a storage property may start with it too (PropertyArgs resolves those)
        }
        String lower = name.toLowerCase(Locale.ROOT);
        java.util.TreeSet<String> longNames = new java.util.TreeSet<>();
        for (String n : options.keySet()) {
            if (n.startsWith("--")) {
                longNames.add(n);
            }
        }
        if (!current.getSubcommands().isEmpty()) {
            longNames.addAll(HOISTED);
        }
        for (String n : longNames) {
            if (n.toLowerCase(Locale.ROOT).equals(lower)) {
                return n + rest;
            }
        }
        List<String> matches = new ArrayList<>();
        for (String n : longNames) {
            if (n.toLowerCase(Locale.ROOT).startsWith(lower)) {
                matches.add(n);
            }
        }
        if (matches.size() == 1) {
            return matches.get(0) + rest;
        }
        if (matches.size() > 1) {
            throw dev.vsm.spi.StorageException.badInput(
                    "Option %s is ambiguous (%s)",
                    name.substring(2),
                    String.join(", ", matches.stream().map(m -> m.substring(2)).toList()));
        }
        return arg;
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
        String lower = dashedName.toLowerCase(Locale.ROOT);
        boolean known = options.containsKey(dashedName)
                || HOISTED.contains(dashedName)
                || options.keySet().stream()
                        .anyMatch(n ->
                                n.startsWith("--") && n.toLowerCase(Locale.ROOT).startsWith(lower));
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
