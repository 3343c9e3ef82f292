package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.env.Environment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /**
     * An in-process run takes its settings from the environment it is given (here the only place
     * that names this configuration), and its stream from the given standard input and output.
     */
    @Test
    void aRunInThisJvmHasTheGivenEnvironmentStandardInputAndOutput(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("storage.yaml");
        Files.writeString(config, "storages:\n  st:\n    type: dir\n    path: " + dir.resolve("st") + "\n");
        Environment env = Environment.of(Map.of(
                "VSM_CONFIG", config.toString(),
                "VSM_LOCK_DIR", dir.resolve("locks").toString(),
                "VSM_PLUGIN_DIR", dir.resolve("plugins").toString(),
                "PATH", System.getenv("PATH")));
        Path image = Files.createDirectories(dir.resolve("st/images/100")).resolve("vm-100-disk-0.raw");
        byte[] data = new byte[64 << 10];
        new java.util.Random(7).nextBytes(data);
        Files.write(image, data);

        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        assertThat(Main.run(
                        new String[] {"export", "st:100/vm-100-disk-0.raw", "raw+size", "-"},
                        InputStream.nullInputStream(),
                        new PrintStream(stream, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        env))
                .as("stderr: %s", err)
                .isZero();
        assertThat(stream.size()).isEqualTo(8 + data.length);

        assertThat(Main.run(
                        new String[] {"import-stream", "st:101/vm-101-disk-0.raw", "raw+size", "-"},
                        new ByteArrayInputStream(stream.toByteArray()),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        discard,
                        env))
                .isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("successfully imported 'st:101/vm-101-disk-0.raw'");
        assertThat(dir.resolve("st/images/101/vm-101-disk-0.raw")).hasBinaryContent(data);
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
    void aCommandIsNamedByTheStartOfItsNameWhenOnlyOneStartsSo() {
        assertThat(Subcommands.expand(new String[] {"--config", "x.yaml", "st", "-v"}))
                .containsExactly("--config", "x.yaml", "status", "-v");
        assertThat(Subcommands.expand(new String[] {"l", "local"})).containsExactly("list", "local");
        assertThat(Subcommands.expand(new String[] {"import", "a", "b"}))
                .as("a full name is never a shortcut of a longer one (import-stream)")
                .containsExactly("import", "a", "b");
        assertThat(Subcommands.expand(new String[] {"lvmscan"})).containsExactly("lvmscan");
        assertThat(Subcommands.expand(new String[] {"xyz"})).containsExactly("xyz");
        assertThat(Subcommands.expand(new String[] {"--", "st"})).containsExactly("--", "st");
        assertThatThrownBy(() -> Subcommands.expand(new String[] {"s"}))
                .hasMessage("command 's' is ambiguous: scan, serve, set, snapshot, snapshot-delete, status");

        picocli.CommandLine cli = new picocli.CommandLine(
                new dev.vsm.cli.support.Vsm(null, System.out, System.err, Environment.of(Map.of())));
        Subcommands.register(cli, Subcommands.expand(new String[] {"st"}));
        assertThat(cli.getSubcommands().keySet())
                .as("a shortcut loads only the command it names")
                .containsExactly("status");
    }

    @Test
    void anAmbiguousShortcutIsBadInputNamingTheCandidates() {
        assertThat(run("snap", "local:100/vm-100-disk-0.qcow2", "x")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("command 'snap' is ambiguous: snapshot, snapshot-delete\n");
        assertThat(out.size()).isZero();
    }

    @Test
    void anUnknownSubcommandIsBadInputWithSuggestions() {
        assertThat(run("statsu")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("statsu");
    }
}
