package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link ImageFileName#parse}: pve's {@code parse_name_dir} patterns, whose common case is matched without a regex. */
class ImageFileNameTest {
    private static final Pattern STANDARD =
            Pattern.compile("(vm-|base-|subvol-)(\\d+)-[^/\\s]+\\.(raw|qcow2|vmdk|subvol)");
    private static final Pattern SNAPSHOT = Pattern.compile("snap-.*\\.qcow2");
    private static final Pattern CUSTOM = Pattern.compile("(base-)?[^/\\s]+\\.(raw|qcow2|vmdk|subvol)");

    @Test
    void standardCustomAndRefusedNames() {
        assertThat(ImageFileName.parse("vm-100-disk-0.qcow2"))
                .isEqualTo(new ImageFileName("vm-100-disk-0.qcow2", VolumeFormat.QCOW2, false));
        assertThat(ImageFileName.parse("base-100-disk-1.raw"))
                .isEqualTo(new ImageFileName("base-100-disk-1.raw", VolumeFormat.RAW, true));
        assertThat(ImageFileName.parse("subvol-101-disk-0.subvol").format()).isEqualTo(VolumeFormat.SUBVOL);
        assertThat(ImageFileName.parse("vm-1-.qcow2.raw").format()).isEqualTo(VolumeFormat.RAW);
        assertThat(ImageFileName.parse("vm-100-.raw"))
                .isEqualTo(new ImageFileName("vm-100-.raw", VolumeFormat.RAW, false)); // custom
        assertThat(ImageFileName.parse("base-x.vmdk").isBase()).isTrue();
        assertThatThrownBy(() -> ImageFileName.parse("snap-x.qcow2"))
                .isInstanceOf(StorageException.class)
                .hasMessage("'snap-x.qcow2' is a snapshot filename, not a volume!");
        for (String bad :
                List.of("vm-100-disk 0.qcow2", "vm-100-disk-0.img", ".raw", "a\tb.raw", "x".repeat(252) + ".raw")) {
            assertThatThrownBy(() -> ImageFileName.parse(bad))
                    .as(bad)
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith("unable to parse volume filename");
        }
        assertThat(ImageFileName.parse("x".repeat(251) + ".raw").format()).isEqualTo(VolumeFormat.RAW);
        assertThat(ImageFileName.isValid("é".repeat(125) + ".raw")).isTrue();
        assertThat(ImageFileName.isValid("é".repeat(126) + ".raw")).isFalse();
    }

    /** Names made of the patterns' pieces: parse answers as the three patterns do. */
    @Test
    void asThePatternsAnswer() {
        String[] pieces = {
            "vm-", "base-", "subvol-", "snap-", "1", "23", "-", "disk", ".", "raw", "qcow2", "vmdk", "subvol", "/", " ",
            "\u000b", "\t", "\u00a0", "x", "٣"
        };
        Random random = new Random(11);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 20000; i++) {
            StringBuilder name = new StringBuilder();
            for (int n = 1 + random.nextInt(7); n > 0; n--) {
                name.append(pieces[random.nextInt(pieces.length)]);
            }
            names.add(name.toString());
        }
        for (String name : names) {
            assertThat(outcome(name)).as(name).isEqualTo(expected(name));
        }
    }

    private static String outcome(String name) {
        try {
            ImageFileName f = ImageFileName.parse(name);
            return f.format() + " " + f.isBase();
        } catch (StorageException e) {
            return e.getMessage();
        }
    }

    private static String expected(String name) {
        if (name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return "unable to parse volume filename '" + VolumeId.printable(name) + "'";
        }
        Matcher m = STANDARD.matcher(name);
        if (m.matches()) {
            return m.group(3) + " " + m.group(1).equals("base-");
        }
        if (SNAPSHOT.matcher(name).matches()) {
            return "'" + name + "' is a snapshot filename, not a volume!";
        }
        m = CUSTOM.matcher(name);
        if (m.matches()) {
            return m.group(2) + " " + (m.group(1) != null);
        }
        return "unable to parse volume filename '" + name + "'";
    }
}
