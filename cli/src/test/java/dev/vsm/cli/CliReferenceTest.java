package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.cli.support.Vsm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * docs/cli/ is the command reference: one AsciiDoc man page per command, generated from the
 * picocli model by picocli-codegen's {@link ManPageGenerator}. This test fails when the committed
 * pages differ from what the model generates now, and says how to refresh them ({@link #REFRESH}).
 */
class CliReferenceTest {
    /** The command that rewrites docs/cli/ from the model. */
    static final String REFRESH = "mvn -B -q verify -pl cli -am -Dtest=CliReferenceTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dvsm.cli-reference.write=true";

    private static final Path DOCS =
            Path.of(System.getProperty("user.dir")).resolveSibling("docs").resolve("cli");

    @TempDir
    Path generated;

    /** The full command tree, as {@code vsm --help} builds it. */
    private static CommandLine vsm() {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        CommandLine cli = new CommandLine(new Vsm(nowhere, nowhere));
        cli.setCommandName("vsm");
        Subcommands.register(cli, new String[0]);
        return cli;
    }

    private static Map<String, String> pages(Path dir) throws IOException {
        Map<String, String> pages = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".adoc"))::iterator) {
                    pages.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
                }
            }
        }
        return pages;
    }

    @Test
    void committedPagesAreWhatTheModelGenerates() throws IOException {
        assertThat(ManPageGenerator.generateManPage(
                        generated.toFile(), null, new boolean[0], true, vsm().getCommandSpec()))
                .isZero();
        Map<String, String> fresh = pages(generated);
        assertThat(fresh).containsKeys("vsm.adoc", "vsm-status.adoc", "vsm-scan-lvm.adoc");
        if (Boolean.getBoolean("vsm.cli-reference.write")) {
            Files.createDirectories(DOCS);
            for (String stale : pages(DOCS).keySet()) {
                if (!fresh.containsKey(stale)) {
                    Files.delete(DOCS.resolve(stale));
                }
            }
            for (Map.Entry<String, String> page : fresh.entrySet()) {
                Files.writeString(DOCS.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
            }
        }
        Map<String, String> committed = pages(DOCS);
        Set<String> names = new TreeSet<>(committed.keySet());
        names.addAll(fresh.keySet());
        names.removeIf(name -> Objects.equals(committed.get(name), fresh.get(name)));
        assertThat(names)
                .as(
                        "pages in docs/cli/ that differ from the commands' picocli model (stale, missing or extra);"
                                + " refresh them from the repository root with:%n  %s%n",
                        REFRESH)
                .isEmpty();
    }

    @Test
    void helpCommandIsTheCommandsOwnHelp() {
        List<List<String>> commands = new ArrayList<>();
        vsm().getSubcommands().forEach((name, sub) -> {
            commands.add(List.of(name));
            sub.getSubcommands().keySet().forEach(subName -> commands.add(List.of(name, subName)));
        });
        for (List<String> command : commands) {
            List<String> viaHelp = new ArrayList<>(List.of("help"));
            viaHelp.addAll(command);
            List<String> viaOption = new ArrayList<>(command);
            viaOption.add("--help");
            assertThat(run(viaHelp))
                    .as(String.join(" ", viaHelp))
                    .isEqualTo(run(viaOption))
                    .startsWith("Usage: vsm " + String.join(" ", command));
        }
    }

    private static String run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThat(Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8), err))
                .as(String.join(" ", args))
                .isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
