package dev.vsm.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * pve's {@code src/test/archive_info_test.pm}, its inputs and expected results unchanged: each
 * expected hash is compared with {@link ArchiveInfo} as a map of pve's keys (keys pve leaves out
 * are null fields). pve runs its tests with {@code TZ=UTC}; the zone is passed here.
 */
class ArchiveInfoTest {
    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final int VMID = 16110;
    private static final String LOG_EXT = ".log";
    private static final String NOTES_EXT = ".notes";

    static Stream<Arguments> pveCases() {
        List<Arguments> tests = new ArrayList<>();
        int vmid = VMID;
        tests.add(Arguments.of(
                "Backup archive, lxc, tgz, future millenium",
                "backup/vzdump-lxc-" + vmid + "-3070_01_01-00_00_00.tgz",
                hash(
                        "filename",
                        "vzdump-lxc-" + vmid + "-3070_01_01-00_00_00.tgz",
                        "logfilename",
                        "vzdump-lxc-" + vmid + "-3070_01_01-00_00_00" + LOG_EXT,
                        "notesfilename",
                        "vzdump-lxc-" + vmid + "-3070_01_01-00_00_00.tgz" + NOTES_EXT,
                        "type",
                        "lxc",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "vmid",
                        vmid,
                        "ctime",
                        60L * 60 * 24 * (365 * 1100 + 267),
                        "is_std_name",
                        1)));
        tests.add(Arguments.of(
                "Backup archive, lxc, tgz, very old",
                "backup/vzdump-lxc-" + vmid + "-1970_01_01-02_00_30.tgz",
                hash(
                        "filename",
                        "vzdump-lxc-" + vmid + "-1970_01_01-02_00_30.tgz",
                        "logfilename",
                        "vzdump-lxc-" + vmid + "-1970_01_01-02_00_30" + LOG_EXT,
                        "notesfilename",
                        "vzdump-lxc-" + vmid + "-1970_01_01-02_00_30.tgz" + NOTES_EXT,
                        "type",
                        "lxc",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "vmid",
                        vmid,
                        "ctime",
                        60L * 60 * 2 + 30,
                        "is_std_name",
                        1)));
        tests.add(Arguments.of(
                "Backup archive, lxc, tgz",
                "backup/vzdump-lxc-" + vmid + "-2020_03_30-21_39_30.tgz",
                hash(
                        "filename",
                        "vzdump-lxc-" + vmid + "-2020_03_30-21_39_30.tgz",
                        "logfilename",
                        "vzdump-lxc-" + vmid + "-2020_03_30-21_39_30" + LOG_EXT,
                        "notesfilename",
                        "vzdump-lxc-" + vmid + "-2020_03_30-21_39_30.tgz" + NOTES_EXT,
                        "type",
                        "lxc",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "vmid",
                        vmid,
                        "ctime",
                        1585604370L,
                        "is_std_name",
                        1)));
        tests.add(Arguments.of(
                "Backup archive, openvz, tgz",
                "backup/vzdump-openvz-" + vmid + "-2020_03_30-21_39_30.tgz",
                hash(
                        "filename",
                        "vzdump-openvz-" + vmid + "-2020_03_30-21_39_30.tgz",
                        "logfilename",
                        "vzdump-openvz-" + vmid + "-2020_03_30-21_39_30" + LOG_EXT,
                        "notesfilename",
                        "vzdump-openvz-" + vmid + "-2020_03_30-21_39_30.tgz" + NOTES_EXT,
                        "type",
                        "openvz",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "vmid",
                        vmid,
                        "ctime",
                        1585604370L,
                        "is_std_name",
                        1)));
        tests.add(Arguments.of(
                "Backup archive, custom dump directory, qemu, tgz",
                "/here/be/Back-ups/vzdump-qemu-" + vmid + "-2020_03_30-21_39_30.tgz",
                hash(
                        "filename",
                        "vzdump-qemu-" + vmid + "-2020_03_30-21_39_30.tgz",
                        "logfilename",
                        "vzdump-qemu-" + vmid + "-2020_03_30-21_39_30" + LOG_EXT,
                        "notesfilename",
                        "vzdump-qemu-" + vmid + "-2020_03_30-21_39_30.tgz" + NOTES_EXT,
                        "type",
                        "qemu",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "vmid",
                        vmid,
                        "ctime",
                        1585604370L,
                        "is_std_name",
                        1)));
        tests.add(Arguments.of(
                "Backup archive, none, tgz",
                "backup/vzdump-qemu-" + vmid + "-whatever-the-name_is_here.tgz",
                hash(
                        "filename",
                        "vzdump-qemu-" + vmid + "-whatever-the-name_is_here.tgz",
                        "type",
                        "qemu",
                        "format",
                        "tar",
                        "compression",
                        "gz",
                        "is_std_name",
                        0)));

        // add new compression fromats to test
        List<String> compressions = List.of("bz2", "gz", "lzo", "zst");
        Map<String, String> bkpSuffix = new TreeMap<>(Map.of("qemu", "vma", "lxc", "tar", "openvz", "tar"));

        // create more test cases for backup files matches
        bkpSuffix.forEach((virt, format) -> {
            String archiveName = "vzdump-" + virt + "-" + vmid + "-2020_03_30-21_12_40";
            compressions.forEach(suffix -> tests.add(Arguments.of(
                    "Backup archive, " + virt + ", " + format + "." + suffix,
                    "backup/" + archiveName + "." + format + "." + suffix,
                    hash(
                            "filename",
                            archiveName + "." + format + "." + suffix,
                            "logfilename",
                            archiveName + LOG_EXT,
                            "notesfilename",
                            archiveName + "." + format + "." + suffix + NOTES_EXT,
                            "type",
                            virt,
                            "format",
                            format,
                            "compression",
                            suffix,
                            "vmid",
                            vmid,
                            "ctime",
                            1585602760L,
                            "is_std_name",
                            1))));
        });

        // add compression formats to test failed matches
        Map<String, List<String>> nonBkpSuffix = new TreeMap<>(Map.of(
                "openvz", List.of("zip", "tgz.lzo", "zip.gz", ""),
                "lxc", List.of("zip", "tgz.lzo", "zip.gz", ""),
                "qemu", List.of("vma.xz", "vms.gz", "vmx.zst", ""),
                "none", List.of("tar.gz")));

        // create tests for failed matches
        nonBkpSuffix.forEach((virt, suffixes) -> {
            for (String s : suffixes) {
                String archive = "backup/vzdump-" + virt + "-" + vmid + "-2020_03_30-21_12_40." + s;
                tests.add(Arguments.of(
                        "Failed match: Backup archive, " + virt + ", " + s,
                        archive,
                        "ERROR: couldn't determine archive info from '" + archive + "'\n"));
            }
        });
        return tests.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pveCases(String description, String archive, Object expected) {
        if (expected instanceof String error) {
            assertThatThrownBy(() -> ArchiveInfo.of(archive, UTC))
                    .isInstanceOf(StorageException.class)
                    .hasMessage(error.strip());
        } else {
            assertThat(asHash(ArchiveInfo.of(archive, UTC))).isEqualTo(expected);
        }
    }

    /** pve's hash: the keys it sets, with its names. */
    private static Map<String, Object> asHash(ArchiveInfo info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("filename", info.filename());
        m.put("logfilename", info.logFilename());
        m.put("notesfilename", info.notesFilename());
        m.put("type", info.type());
        m.put("format", info.format());
        m.put("compression", info.compression());
        m.put("vmid", info.vmid());
        m.put("ctime", info.ctime());
        m.put("is_std_name", info.isStdName() ? 1 : 0);
        m.values().removeIf(v -> v == null);
        return m;
    }

    private static Map<String, Object> hash(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
