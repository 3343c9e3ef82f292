package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FileStat#entries}: the order of pve's glob, computed with one key per name. */
class FileStatTest {
    @TempDir
    Path dir;

    @Test
    void namesSortAsTheCaseInsensitiveOrderSortsThem() {
        List<String> names = new ArrayList<>(List.of(
                "vm-100-disk-10.qcow2",
                "vm-100-disk-9.qcow2",
                "VM-100-disk-1.raw",
                "vm-100-disk-1.raw",
                "Vm-100-disk-1.raw",
                "base-100-disk-0.qcow2",
                "a_b",
                "a-b",
                "a[b",
                "A[B",
                "aZ",
                "az",
                "a",
                "ä-100.raw",
                "Ä-100.raw",
                "é",
                "É",
                "ſ",
                "s",
                "S",
                "ı",
                "i",
                "I",
                "\u0130",
                "z",
                "Z",
                "_",
                "~",
                "@",
                "`"));
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            StringBuilder name = new StringBuilder();
            String alphabet = "aAbB_-[`~9äÄßſıİ";
            for (int c = random.nextInt(6); c >= 0; c--) {
                name.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            names.add(name.toString());
        }
        List<String> expected = new ArrayList<>(names);
        expected.sort(String.CASE_INSENSITIVE_ORDER.thenComparing(Comparator.naturalOrder()));
        Collections.shuffle(names, random);
        assertThat(FileStat.sortedGlob(names)).containsExactlyElementsOf(expected);
    }

    @Test
    void entriesAreTheDirectorysNamesInGlobOrderWithoutDotFiles() throws IOException {
        for (String name : List.of("b", "A", "a", ".hidden", "C")) {
            Files.createFile(dir.resolve(name));
        }
        assertThat(FileStat.entries(dir))
                .extracting(p -> p.getFileName().toString())
                .containsExactly("A", "a", "b", "C");
        assertThat(FileStat.entries(dir.resolve("b"))).isEmpty();
        assertThat(FileStat.entries(dir.resolve("missing"))).isEmpty();
    }
}
