package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContentFileNamesTest {
    @ParameterizedTest
    @CsvSource({
        "ct.tar, tar",
        "ct.tar.gz, tgz",
        "ct.tar.xz, txz",
        "ct.tar.zst, tzst",
        "ct.tar.bz2, tbz2",
        "CT.TAR.GZ, tgz"
    })
    void templateFormats(String file, String format) {
        assertThat(ContentFileNames.templateFormat(file)).contains(format);
    }

    @ParameterizedTest
    @CsvSource({
        "a.vma, vma",
        "a.vma.zst, vma.zst",
        "a.tar.gz, tar.gz",
        "a.tgz, tgz",
        "a.tar.lzo, tar.lzo",
        "x.vma.gz.tar, tar"
    })
    void backupFormats(String file, String format) {
        assertThat(ContentFileNames.backupFormat(file)).contains(format);
    }

    @Test
    void importFormatsAreCaseSensitiveAndSafeCharactersOnly() {
        assertThat(ContentFileNames.importFormat("disk.qcow2")).contains("qcow2");
        assertThat(ContentFileNames.importFormat("DISK.OVA")).isEmpty();
        assertThat(ContentFileNames.importFormat("my disk.ova")).isEmpty();
        assertThat(ContentFileNames.importFormat("a;b.ova")).isEmpty();
    }

    @Test
    void isoFormats() {
        assertThat(ContentFileNames.isoFormat("a.ISO")).contains("iso");
        assertThat(ContentFileNames.isoFormat("a.img")).contains("iso");
        assertThat(ContentFileNames.isoFormat("a.dvd")).isEmpty();
    }
}
