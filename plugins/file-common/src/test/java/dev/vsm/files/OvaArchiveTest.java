package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link OvaArchive} against archives written by GNU tar in its ustar, pax and gnu formats, and damaged ones. */
class OvaArchiveTest {
    @TempDir
    Path dir;

    private Path tar(String format, String... members) throws IOException, InterruptedException {
        Path archive = dir.resolve(format + ".tar");
        List<String> argv = new java.util.ArrayList<>(List.of(
                "tar",
                "--format=" + format,
                "-cf",
                archive.toString(),
                "-C",
                dir.resolve("content").toString()));
        argv.addAll(List.of(members));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return archive;
    }

    private Path content(String name, String text) throws IOException {
        Path file = dir.resolve("content").resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text);
    }

    @Test
    void readsEveryFormatGnuTarWritesAndExtractsTheData() throws Exception {
        String longName = "d".repeat(120) + ".vmdk";
        content("a.ovf", "<Envelope/>");
        content(longName, "disk data\n".repeat(100));
        for (String format : List.of("pax", "gnu")) {
            Path ova = tar(format, "a.ovf", longName);
            Path out = dir.resolve(format + ".out");
            try (FileChannel in = FileChannel.open(ova);
                    FileChannel to = FileChannel.open(out, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                OvaArchive archive = OvaArchive.read(ova, in);
                assertThat(archive.members())
                        .extracting(OvaArchive.Member::name)
                        .containsExactly("a.ovf", longName);
                archive.extract(archive.member(longName).orElseThrow(), in, to);
            }
            assertThat(Files.readString(out)).isEqualTo("disk data\n".repeat(100));
        }
        Files.delete(dir.resolve("content").resolve(longName)); // beyond ustar's names
        content("sub/b.vmdk", "b");
        OvaArchive ustar = OvaArchive.read(tar("ustar", "."));
        assertThat(ustar.members())
                .extracting(OvaArchive.Member::name)
                .as("./ stripped, directories skipped")
                .containsExactlyInAnyOrder("a.ovf", "sub/b.vmdk");
    }

    @Test
    void refusesLinksDamageAndNonArchives() throws Exception {
        content("a.vmdk", "a");
        Files.createLink(dir.resolve("content/b.vmdk"), dir.resolve("content/a.vmdk"));
        assertThatThrownBy(() -> OvaArchive.read(tar("ustar", "a.vmdk", "b.vmdk")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("member 'b.vmdk' is a hard link");

        Path good = tar("ustar", "a.vmdk");
        byte[] bytes = Files.readAllBytes(good);
        bytes[0] ^= 1; // the first letter of the first member's name
        Path corrupt = Files.write(dir.resolve("corrupt.tar"), bytes);
        assertThatThrownBy(() -> OvaArchive.read(corrupt)).hasMessageContaining("checksum mismatch");

        Path text = Files.writeString(dir.resolve("text.ova"), "not a tar\n".repeat(100));
        assertThatThrownBy(() -> OvaArchive.read(text)).hasMessageContaining("not a tar archive");
        Path empty = Files.write(dir.resolve("empty.ova"), new byte[0]);
        assertThatThrownBy(() -> OvaArchive.read(empty)).hasMessageContaining("truncated");
        assertThatThrownBy(() -> OvaArchive.read(dir.resolve("missing.ova"))).hasMessageContaining("cannot read OVA");
    }
}
