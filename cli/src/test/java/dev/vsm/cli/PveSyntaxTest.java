package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.cli.support.Vsm;
import dev.vsm.spi.StorageException;
import java.io.OutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** pvesm's option syntax mapped onto picocli's, before picocli parses. */
class PveSyntaxTest {
    private static String[] translate(String... args) {
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        CommandLine cli = new CommandLine(new Vsm(nowhere, nowhere));
        String[] helped = PveSyntax.scanAlias(PveSyntax.streamImport(PveSyntax.help(args)));
        Subcommands.register(cli, helped);
        return PveSyntax.translate(cli, helped);
    }

    @Test
    void oneDashIsTwoForTheCommandsOwnOptions() {
        assertThat(translate("status", "-content", "images", "-enabled", "1"))
                .containsExactly("status", "--content", "images", "--enabled");
        assertThat(translate("alloc", "local", "100", "", "4G", "-format=qcow2", "-dry-run", "0"))
                .containsExactly("alloc", "local", "100", "", "4G", "--format=qcow2");
        assertThat(translate("list", "local", "-vmid", "100", "-verbose", "-config", "/x.yaml"))
                .containsExactly("list", "local", "--vmid", "100", "--verbose", "--config", "/x.yaml");
    }

    @Test
    void pvesmsScanAliasesAreItsScans() {
        assertThat(translate("lvmscan")).containsExactly("scan", "lvm");
        assertThat(translate("-config", "/x.yaml", "lvmthinscan", "-output-format", "json"))
                .containsExactly("--config", "/x.yaml", "scan", "lvmthin", "--output-format", "json");
        assertThat(translate("help", "lvmscan")).containsExactly("scan", "lvm", "--help");
        assertThat(translate("nfsscan", "server")).containsExactly("scan", "nfs", "server");
        assertThat(translate("list", "lvmscan")).containsExactly("list", "lvmscan");
    }

    @Test
    void shortOptionsValuesAndTheEndOfOptionsAreLeftAlone() {
        assertThat(translate("free", "-q", "-h", "local:100/x.raw"))
                .containsExactly("free", "-q", "-h", "local:100/x.raw");
        assertThat(translate("rename", "local:100/vm-100-disk-0.raw", "101", "-name", "-content"))
                .as("the value of an option that takes one")
                .containsExactly("rename", "local:100/vm-100-disk-0.raw", "101", "--name", "-content");
        assertThat(translate("resize", "local:100/x.raw", "-5")).containsExactly("resize", "local:100/x.raw", "-5");
        assertThat(translate("export", "local:100/x.raw", "raw+size", "-"))
                .containsExactly("export", "local:100/x.raw", "raw+size", "-");
        assertThat(translate("list", "--", "-content")).containsExactly("list", "--", "-content");
        assertThat(translate("list", "local", "-nosuch")).containsExactly("list", "local", "-nosuch");
    }

    @Test
    void propertiesOfAddAndSetTakeOneDash() {
        assertThat(translate("add", "dir", "x", "-path", "/srv/x", "-content=iso", "-v"))
                .containsExactly("add", "dir", "x", "--path", "/srv/x", "--content=iso", "-v");
        assertThat(translate("set", "x", "-vgname", "vg", "-delete", "content"))
                .as("-vgname is a property, not -v and gname")
                .containsExactly("set", "x", "--vgname", "vg", "--delete", "content");
    }

    @Test
    void outputFormatMayComeBeforeTheCommandAndHelpNamesOne() {
        assertThat(translate("-output-format", "json", "status", "-storage", "local"))
                .containsExactly("status", "--storage", "local", "--output-format", "json");
        assertThat(translate("--output-format=yaml", "scan", "lvm"))
                .containsExactly("scan", "lvm", "--output-format=yaml");
        assertThat(translate("help", "list")).containsExactly("list", "--help");
        assertThat(translate("--verbose", "help", "scan", "lvm")).containsExactly("--verbose", "scan", "lvm", "--help");
        assertThat(translate("help")).containsExactly("--help");
    }

    /**
     * Getopt::Long's defaults, which pvesm's CLIHandler parses with: a unique abbreviation of a
     * long option, in any case; an ambiguous one refused (pvesm export's {@code -snap}: snapshot
     * or snapshot-list); an option whose value is optional takes the next argument unless it is
     * an option.
     */
    @Test
    void uniqueAbbreviationsInAnyCaseAreTheOptionAmbiguousOnesAreRefused() {
        assertThat(translate("export", "local:100/x.qcow2", "qcow2+size", "-", "-with", "1", "-snapshot-l", "a,b"))
                .containsExactly(
                        "export",
                        "local:100/x.qcow2",
                        "qcow2+size",
                        "-",
                        "--with-snapshots",
                        "1",
                        "--snapshot-list",
                        "a,b");
        assertThat(translate(
                        "import-stream",
                        "local:100/x.raw",
                        "raw+size",
                        "-",
                        "--WITH-SNAPSHOTS=0",
                        "-snap",
                        "s",
                        "-allow"))
                .containsExactly(
                        "import-stream",
                        "local:100/x.raw",
                        "raw+size",
                        "-",
                        "--with-snapshots=0",
                        "--snapshot",
                        "s",
                        "--allow-rename");
        assertThat(translate("import-stream", "local:100/x.raw", "raw+size", "-", "-allow-rename", "-q"))
                .as("an optional value is not taken from the next option")
                .endsWith("--allow-rename", "-q");
        assertThat(translate("export", "local:100/x.raw", "raw+size", "-", "-snapshot", "s"))
                .as("an exact name wins over the longer one it starts")
                .contains("--snapshot");
        assertThatThrownBy(() -> translate("export", "local:100/x.raw", "raw+size", "-", "-snap", "s"))
                .isInstanceOf(StorageException.class)
                .hasMessage("Option snap is ambiguous (snapshot, snapshot-list)");
        assertThat(translate("list", "local", "-nosuch")).containsExactly("list", "local", "-nosuch");
    }

    @Test
    void pvesmImportOfAVolumeIdAndAStreamFormatIsTheStreamImport() {
        assertThat(translate(
                        "import",
                        "local:100/vm-100-disk-0.raw",
                        "raw+size",
                        "-",
                        "-with-snapshots",
                        "0",
                        "-allow-rename",
                        "1"))
                .containsExactly(
                        "import-stream",
                        "local:100/vm-100-disk-0.raw",
                        "raw+size",
                        "-",
                        "--with-snapshots",
                        "0",
                        "--allow-rename",
                        "1");
        assertThat(translate("import", "local", "100", "/srv/disk.qcow2"))
                .as("vsm's own import")
                .containsExactly("import", "local", "100", "/srv/disk.qcow2");
        assertThat(translate("import", "local", "100", "local:import/disk.qcow2"))
                .startsWith("import");
    }
}
