package dev.vsm.cli;

import dev.vsm.cli.command.AclCommand;
import dev.vsm.cli.command.ActivateCommand;
import dev.vsm.cli.command.AddCommand;
import dev.vsm.cli.command.AllocCommand;
import dev.vsm.cli.command.ApiInfoCommand;
import dev.vsm.cli.command.CleanupCommand;
import dev.vsm.cli.command.CloneCommand;
import dev.vsm.cli.command.ClusterCommand;
import dev.vsm.cli.command.CopyCommand;
import dev.vsm.cli.command.CreateBaseCommand;
import dev.vsm.cli.command.DeactivateCommand;
import dev.vsm.cli.command.ExportCommand;
import dev.vsm.cli.command.ExtractConfigCommand;
import dev.vsm.cli.command.FreeCommand;
import dev.vsm.cli.command.ImportCommand;
import dev.vsm.cli.command.ImportMetadataCommand;
import dev.vsm.cli.command.ImportStreamCommand;
import dev.vsm.cli.command.InfoCommand;
import dev.vsm.cli.command.ListCommand;
import dev.vsm.cli.command.PathCommand;
import dev.vsm.cli.command.PluginsCommand;
import dev.vsm.cli.command.PruneBackupsCommand;
import dev.vsm.cli.command.RemoveCommand;
import dev.vsm.cli.command.RenameCommand;
import dev.vsm.cli.command.RenameSnapshotCommand;
import dev.vsm.cli.command.ResizeCommand;
import dev.vsm.cli.command.RollbackCheckCommand;
import dev.vsm.cli.command.RollbackCommand;
import dev.vsm.cli.command.ScanCommand;
import dev.vsm.cli.command.ServeCommand;
import dev.vsm.cli.command.SetCommand;
import dev.vsm.cli.command.SnapshotCommand;
import dev.vsm.cli.command.SnapshotDeleteCommand;
import dev.vsm.cli.command.StatusCommand;
import dev.vsm.cli.command.TokenCommand;
import dev.vsm.cli.command.UpdateAttributesCommand;
import dev.vsm.cli.command.UserCommand;
import dev.vsm.cli.command.VolidCommand;
import dev.vsm.cli.command.WipeCommand;
import dev.vsm.spi.StorageException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;

/**
 * vsm's subcommands, in the order help lists them. picocli reads a command's annotations by
 * reflection when it is added, which for all of them cost more start-up time than most commands
 * take to run; so a command line that names one gets only that one (and help, a bad or no
 * subcommand, all of them). A new command is added here; its name is its {@code @Command} name.
 */
final class Subcommands {
    static final Map<String, Class<?>> ALL = new LinkedHashMap<>();

    static {
        ALL.put("status", StatusCommand.class);
        ALL.put("list", ListCommand.class);
        ALL.put("alloc", AllocCommand.class);
        ALL.put("free", FreeCommand.class);
        ALL.put("path", PathCommand.class);
        ALL.put("volid", VolidCommand.class);
        ALL.put("info", InfoCommand.class);
        ALL.put("resize", ResizeCommand.class);
        ALL.put("create-base", CreateBaseCommand.class);
        ALL.put("clone", CloneCommand.class);
        ALL.put("rename", RenameCommand.class);
        ALL.put("prune-backups", PruneBackupsCommand.class);
        ALL.put("update-attributes", UpdateAttributesCommand.class);
        ALL.put("extractconfig", ExtractConfigCommand.class);
        ALL.put("add", AddCommand.class);
        ALL.put("set", SetCommand.class);
        ALL.put("remove", RemoveCommand.class);
        ALL.put("apiinfo", ApiInfoCommand.class);
        ALL.put("plugins", PluginsCommand.class);
        ALL.put("scan", ScanCommand.class);
        ALL.put("cleanup", CleanupCommand.class);
        ALL.put("wipe", WipeCommand.class);
        ALL.put("snapshot", SnapshotCommand.class);
        ALL.put("snapshot-delete", SnapshotDeleteCommand.class);
        ALL.put("rollback", RollbackCommand.class);
        ALL.put("rollback-check", RollbackCheckCommand.class);
        ALL.put("rename-snapshot", RenameSnapshotCommand.class);
        ALL.put("activate", ActivateCommand.class);
        ALL.put("deactivate", DeactivateCommand.class);
        ALL.put("import", ImportCommand.class);
        ALL.put("export", ExportCommand.class);
        ALL.put("import-stream", ImportStreamCommand.class);
        ALL.put("import-metadata", ImportMetadataCommand.class);
        ALL.put("copy", CopyCommand.class);
        ALL.put("cluster", ClusterCommand.class);
        ALL.put("serve", ServeCommand.class);
        ALL.put("token", TokenCommand.class);
        ALL.put("acl", AclCommand.class);
        ALL.put("user", UserCommand.class);
    }

    /** Global options that take a value in the next argument, in pvesm's one-dash form too. */
    private static final Set<String> WITH_VALUE =
            Set.of("--config", "--plugin-dir", "--output-format", "-config", "-plugin-dir", "-output-format");

    private Subcommands() {}

    /** Adds to {@code cli} the subcommand {@code args} names, or all of them when it names none. */
    static void register(CommandLine cli, String[] args) {
        String named = named(args);
        if (named != null && ALL.containsKey(named) && !isHelp(args)) {
            cli.addSubcommand(named, new CommandLine(create(ALL.get(named))));
        } else {
            ALL.forEach((name, command) -> cli.addSubcommand(name, new CommandLine(create(command))));
        }
        CommandLine add = cli.getSubcommands().get("add");
        if (add != null) {
            AddCommand.showTypeProperties(add);
        }
    }

    /**
     * pvesm's command shortcuts (its CLI handler's {@code expand_command_name}): a command named by
     * the start of its name ({@code st} is {@code status}, {@code l} is {@code list}) when exactly
     * one command starts so; a full name, pvesm's scan aliases ({@code lvmscan}) and {@code help}
     * stay as they are. A start several commands share is bad input naming them, where pvesm
     * would say only "unknown command". Commands of a command ({@code scan lvmt}) are expanded by
     * {@link PveSyntax#translate} once the command is loaded.
     *
     * @throws StorageException (bad input) when the start is ambiguous
     */
    static String[] expand(String[] args) {
        int at = namedIndex(args);
        if (at < 0) {
            return args;
        }
        String name = args[at];
        List<String> names = new ArrayList<>(ALL.keySet());
        names.add("help");
        String full = expand(name, names);
        if (full.equals(name)) {
            return args;
        }
        String[] rewritten = args.clone();
        rewritten[at] = full;
        return rewritten;
    }

    /**
     * {@code name} itself when it is one of {@code names} or starts none of them, else the one
     * name it starts.
     *
     * @throws StorageException (bad input) when it starts several
     */
    static String expand(String name, Collection<String> names) {
        if (names.contains(name) || name.isEmpty()) {
            return name;
        }
        List<String> matches = new ArrayList<>();
        for (String n : names) {
            if (n.startsWith(name)) {
                matches.add(n);
            }
        }
        if (matches.size() > 1) {
            Collections.sort(matches);
            throw StorageException.badInput("command '%s' is ambiguous: %s", name, String.join(", ", matches));
        }
        return matches.isEmpty() ? name : matches.get(0);
    }

    /** A new command object. */
    static Object create(Class<?> command) {
        try {
            return command.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make the command " + command.getName(), e);
        }
    }

    /** The first argument that is not a global option or its value, or null. */
    static String named(String[] args) {
        int at = namedIndex(args);
        return at < 0 ? null : args[at];
    }

    /** The index of {@link #named}'s argument, or -1. */
    static int namedIndex(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (WITH_VALUE.contains(args[i])) {
                i++;
            } else if (args[i].equals("--")) {
                return -1;
            } else if (!args[i].startsWith("-")) {
                return i;
            }
        }
        return -1;
    }

    /** Top-level help or version asked for before the subcommand: picocli shows the full list. */
    private static boolean isHelp(String[] args) {
        for (String a : args) {
            if (!a.startsWith("-") || WITH_VALUE.contains(a)) {
                return false;
            }
            if (a.equals("-h") || a.equals("--help") || a.equals("-V") || a.equals("--version")) {
                return true;
            }
        }
        return false;
    }
}
