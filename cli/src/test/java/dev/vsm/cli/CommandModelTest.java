package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.cli.support.Vsm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The model the build saves (and vsm runs on) is the model picocli reads from the annotations:
 * for the root and every subcommand, the same usage help, options, parameters and mixins.
 */
class CommandModelTest {
    @Test
    void theBuildSavedEveryCommand() {
        assertThat(CommandModel.holds(Vsm.class)).isTrue();
        Subcommands.ALL
                .values()
                .forEach(c -> assertThat(CommandModel.holds(c)).as(c.getName()).isTrue());
    }

    @Test
    void theSavedModelIsTheAnnotatedOne() {
        CommandLine annotated = tree(CommandLine::new);
        CommandLine saved = tree(CommandModel::commandLine);
        compare(annotated, saved);
    }

    @Test
    void theSavedModelParsesAsTheAnnotatedOne() {
        String[] args = {
            "--config", "/etc/x.yaml", "-v", "status", "--storage", "local", "--enabled", "--output-format", "json"
        };
        assertThat(parsed(tree(CommandModel::commandLine), args)).isEqualTo(parsed(tree(CommandLine::new), args));
        String[] alloc = {"alloc", "local", "100", "", "4G", "--format", "qcow2", "--dry-run"};
        assertThat(parsed(tree(CommandModel::commandLine), alloc)).isEqualTo(parsed(tree(CommandLine::new), alloc));
    }

    /** vsm's whole command tree, each command line made by {@code make}, as Main and Subcommands make it. */
    private static CommandLine tree(Function<Object, CommandLine> make) {
        PrintStream nowhere = new PrintStream(new ByteArrayOutputStream());
        CommandLine root = make.apply(new Vsm(nowhere, nowhere));
        Subcommands.ALL.forEach((name, command) -> root.addSubcommand(name, make.apply(Subcommands.create(command))));
        return root;
    }

    private static void compare(CommandLine annotated, CommandLine saved) {
        String name = annotated.getCommandSpec().qualifiedName();
        assertThat(saved.getUsageMessage(CommandLine.Help.Ansi.OFF))
                .as("usage of %s", name)
                .isEqualTo(annotated.getUsageMessage(CommandLine.Help.Ansi.OFF));
        CommandSpec a = annotated.getCommandSpec();
        CommandSpec s = saved.getCommandSpec();
        assertThat(describe(s.options())).as("options of %s", name).isEqualTo(describe(a.options()));
        assertThat(describe(s.positionalParameters()))
                .as("parameters of %s", name)
                .isEqualTo(describe(a.positionalParameters()));
        assertThat(s.mixins().keySet())
                .as("mixins of %s", name)
                .isEqualTo(a.mixins().keySet());
        assertThat(s.unmatchedArgsBindings()).as("@Unmatched of %s", name).hasSameSizeAs(a.unmatchedArgsBindings());
        assertThat(s.aliases()).isEqualTo(a.aliases());
        assertThat(s.mixinStandardHelpOptions()).isEqualTo(a.mixinStandardHelpOptions());
        assertThat(s.subcommands().keySet())
                .as("subcommands of %s", name)
                .isEqualTo(a.subcommands().keySet());
        a.subcommands().forEach((sub, cl) -> compare(cl, s.subcommands().get(sub)));
    }

    private static List<String> describe(List<? extends ArgSpec> args) {
        List<String> out = new ArrayList<>();
        for (ArgSpec arg : args) {
            StringBuilder d = new StringBuilder();
            if (arg instanceof OptionSpec o) {
                d.append(Arrays.toString(o.names()))
                        .append(" usageHelp=")
                        .append(o.usageHelp())
                        .append(" versionHelp=")
                        .append(o.versionHelp())
                        .append(" negatable=")
                        .append(o.negatable())
                        .append(" order=")
                        .append(o.order())
                        .append(" fallback=")
                        .append(o.fallbackValue());
            } else if (arg instanceof PositionalParamSpec p) {
                d.append("index=").append(p.index());
            }
            d.append(" label=")
                    .append(arg.paramLabel())
                    .append(" arity=")
                    .append(arg.arity())
                    .append(" type=")
                    .append(arg.type().getName())
                    .append(" aux=")
                    .append(Arrays.toString(arg.auxiliaryTypes()))
                    .append(" description=")
                    .append(Arrays.toString(arg.description()))
                    .append(" split=")
                    .append(arg.splitRegex())
                    .append(" required=")
                    .append(arg.required())
                    .append(" hidden=")
                    .append(arg.hidden())
                    .append(" scope=")
                    .append(arg.scopeType())
                    .append(" inherited=")
                    .append(arg.inherited())
                    .append(" default=")
                    .append(arg.defaultValue())
                    .append(" initial=")
                    .append(arg.initialValue())
                    .append(" converters=")
                    .append(Arrays.stream(arg.converters())
                            .map(c -> c.getClass().getName())
                            .toList());
            out.add(d.toString());
        }
        return out;
    }

    /** What a parse of {@code args} matched: each option and parameter's value, command by command. */
    private static List<String> parsed(CommandLine cli, String[] args) {
        List<String> values = new ArrayList<>();
        for (CommandLine.ParseResult r = cli.parseArgs(args); r != null; r = r.subcommand()) {
            values.add(r.commandSpec().qualifiedName());
            r.matchedArgs()
                    .forEach(a -> values.add(
                            Arrays.toString(a instanceof OptionSpec o ? o.names() : new String[] {a.paramLabel()}) + "="
                                    + String.valueOf(a.<Object>getValue())));
        }
        return values;
    }
}
