package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The exit-status contract, in-process: parameter errors are bad input with one line on stderr. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void unknownOptionsAndMissingArgumentsAreBadInput() {
        assertThat(run("alloc", "local")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8).strip().lines().count()).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Missing required parameters", "vsm alloc --help");
    }

    @Test
    void everyCommandTakesHelp() {
        for (String[] args :
                new String[][] {{"status", "--help"}, {"alloc", "-h"}, {"scan", "lvm", "--help"}, {"scan", "--help"}}) {
            out.reset();
            assertThat(run(args)).as(String.join(" ", args)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: vsm " + args[0]);
        }
    }

    @Test
    void apiinfoNeedsNoConfiguration() {
        assertThat(run("apiinfo")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("APIVER 1\nAPIAGE 0\n");
    }

    @Test
    void badOutputFormatIsBadInput() {
        assertThat(run("apiinfo", "--output-format", "xml")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("invalid output format 'xml'");
    }

    @Test
    void eachSubcommandIsRegisteredUnderItsCommandName() {
        Subcommands.ALL.forEach((name, command) -> assertThat(Subcommands.create(command)
                        .getClass()
                        .getAnnotation(picocli.CommandLine.Command.class)
                        .name())
                .isEqualTo(name));
    }

    @Test
    void helpListsEverySubcommand() {
        assertThat(run("--help")).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        Subcommands.ALL.keySet().forEach(name -> assertThat(help).contains("  " + name + " "));
    }

    @Test
    void theNamedSubcommandIsFoundAfterGlobalOptions() {
        assertThat(Subcommands.named(new String[] {"--config", "status", "-v", "list", "local"}))
                .isEqualTo("list");
        assertThat(Subcommands.named(new String[] {"--plugin-dir=/x", "apiinfo"}))
                .isEqualTo("apiinfo");
        assertThat(Subcommands.named(new String[] {"--verbose"})).isNull();
        assertThat(run("--config", "/nonexistent/storage.yaml", "apiinfo")).isZero();
    }

    @Test
    void anUnknownSubcommandIsBadInputWithSuggestions() {
        assertThat(run("statsu")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("statsu");
    }
}
