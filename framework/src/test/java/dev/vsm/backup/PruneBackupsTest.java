package dev.vsm.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.BackupDetails;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeInfo;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * pve's {@code src/test/prune_backups_test.pm}, its inputs and expected results unchanged: pve
 * mocks {@code list_volumes} with these backup lists (filtered by vmid as its mock does) and runs
 * {@code prune_backups} as a dry run; here the lists go to {@link BackupPruner#mark} as listed
 * volumes. pve runs its tests with {@code TZ=UTC}; the zone is passed here.
 */
class PruneBackupsTest {
    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final String STOREID = "BackTest123";
    private static final List<Integer> VMIDS = List.of(1234, 9001);
    private static final long BASETIME = 1577881101; // 2020_01_01-12_18_21 UTC

    private static final Map<String, List<Map<String, Object>>> MOCKED_BACKUPS_LISTS = new HashMap<>();

    static {
        for (int vmid : VMIDS) {
            MOCKED_BACKUPS_LISTS
                    .computeIfAbsent("default", k -> new ArrayList<>())
                    .addAll(List.of(
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2018_05_26-11_18_21.tar.zst",
                                    "ctime",
                                    BASETIME - 585 * 24 * 60 * 60 - 60 * 60,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_18_21.tar.zst",
                                    "ctime",
                                    BASETIME - 24 * 60 * 60 - 60 * 60,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_18_51.tar.zst",
                                    "ctime",
                                    BASETIME - 24 * 60 * 60 - 60 * 60 + 30,
                                    "vmid",
                                    vmid,
                                    "protected",
                                    1),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_19_21.tar.zst",
                                    "ctime",
                                    BASETIME - 24 * 60 * 60 - 60 * 60 + 60,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2020_01_01-11_18_21.tar.zst",
                                    "ctime",
                                    BASETIME - 60 * 60,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-qemu-" + vmid + "-2020_01_01-12_18_21.tar.zst",
                                    "ctime",
                                    BASETIME,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-lxc-" + vmid + "-2020_01_01-12_18_21.tar.zst",
                                    "ctime",
                                    BASETIME,
                                    "vmid",
                                    vmid),
                            hash(
                                    "volid",
                                    STOREID + ":backup/vzdump-" + vmid + "-renamed.tar.zst",
                                    "ctime",
                                    1234L,
                                    "vmid",
                                    vmid)));
        }
        MOCKED_BACKUPS_LISTS.put(
                "year1970",
                List.of(
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-lxc-321-1970_01_01-00_01_23.tar.zst",
                                "ctime",
                                83L,
                                "vmid",
                                321),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-lxc-321-2070_01_01-00_01_00.tar.zst",
                                "ctime",
                                60L * 60 * 24 * (365 * 100 + 25) + 60,
                                "vmid",
                                321)));
        MOCKED_BACKUPS_LISTS.put(
                "novmid", List.of(hash("volid", STOREID + ":backup/vzdump-lxc-novmid.tar.gz", "ctime", 1234L)));
        MOCKED_BACKUPS_LISTS.put(
                "threeway",
                List.of(
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2019_12_25-12_18_21.tar.zst",
                                "ctime",
                                BASETIME - 7 * 24 * 60 * 60,
                                "vmid",
                                7654),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2019_12_31-12_18_21.tar.zst",
                                "ctime",
                                BASETIME - 24 * 60 * 60,
                                "vmid",
                                7654),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2020_01_01-12_18_21.tar.zst",
                                "ctime",
                                BASETIME,
                                "vmid",
                                7654)));
        MOCKED_BACKUPS_LISTS.put(
                "weekboundary",
                List.of(
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2020_12_03-12_18_21.tar.zst",
                                "ctime",
                                BASETIME + (366 - 31 + 2) * 24 * 60 * 60,
                                "vmid",
                                7654),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2020_12_04-12_18_21.tar.zst",
                                "ctime",
                                BASETIME + (366 - 31 + 3) * 24 * 60 * 60,
                                "vmid",
                                7654),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-7654-2020_12_07-12_18_21.tar.zst",
                                "ctime",
                                BASETIME + (366 - 31 + 6) * 24 * 60 * 60,
                                "vmid",
                                7654)));
    }

    /** pve's mocked {@code list_volumes}: the list, or its entries of one vmid. */
    private static List<Map<String, Object>> listVolumes(String currentList, Integer vmid) {
        List<Map<String, Object>> list = MOCKED_BACKUPS_LISTS.get(currentList);
        if (vmid == null) {
            return list;
        }
        return list.stream().filter(e -> Objects.equals(e.get("vmid"), vmid)).toList();
    }

    static List<Map<String, Object>> generateExpected(List<Integer> vmids, String type, List<String> marks) {
        List<Map<String, Object>> expected = new ArrayList<>();
        for (int vmid : vmids) {
            if (type == null || type.equals("qemu")) {
                expected.addAll(List.of(
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2018_05_26-11_18_21.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME - 585 * 24 * 60 * 60 - 60 * 60,
                                "mark",
                                marks.get(0),
                                "vmid",
                                vmid),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_18_21.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME - 24 * 60 * 60 - 60 * 60,
                                "mark",
                                marks.get(1),
                                "vmid",
                                vmid),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_18_51.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME - 24 * 60 * 60 - 60 * 60 + 30,
                                "mark",
                                "protected",
                                "vmid",
                                vmid),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2019_12_31-11_19_21.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME - 24 * 60 * 60 - 60 * 60 + 60,
                                "mark",
                                marks.get(2),
                                "vmid",
                                vmid),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2020_01_01-11_18_21.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME - 60 * 60,
                                "mark",
                                marks.get(3),
                                "vmid",
                                vmid),
                        hash(
                                "volid",
                                STOREID + ":backup/vzdump-qemu-" + vmid + "-2020_01_01-12_18_21.tar.zst",
                                "type",
                                "qemu",
                                "ctime",
                                BASETIME,
                                "mark",
                                marks.get(4),
                                "vmid",
                                vmid)));
            }
            if (type == null || type.equals("lxc")) {
                expected.add(hash(
                        "volid",
                        STOREID + ":backup/vzdump-lxc-" + vmid + "-2020_01_01-12_18_21.tar.zst",
                        "type",
                        "lxc",
                        "ctime",
                        BASETIME,
                        "mark",
                        marks.get(5),
                        "vmid",
                        vmid));
            }
            if (type == null) {
                expected.add(hash(
                        "volid",
                        STOREID + ":backup/vzdump-" + vmid + "-renamed.tar.zst",
                        "type",
                        "unknown",
                        "ctime",
                        1234L,
                        "mark",
                        "renamed",
                        "vmid",
                        vmid));
            }
        }
        expected.sort(Comparator.comparing(e -> (String) e.get("volid")));
        return expected;
    }

    static Stream<Arguments> pveCases() {
        int vmid0 = VMIDS.get(0);
        return Stream.of(
                test(
                        "last=3, multiple IDs",
                        null,
                        null,
                        keep("keep-last", 3),
                        null,
                        generateExpected(VMIDS, null, List.of("remove", "remove", "keep", "keep", "keep", "keep"))),
                test(
                        "weekly=2, one ID",
                        vmid0,
                        null,
                        keep("keep-weekly", 2),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("keep", "remove", "remove", "remove", "keep", "keep"))),
                test(
                        "daily=weekly=monthly=1, multiple IDs",
                        null,
                        null,
                        keep("keep-hourly", 0, "keep-daily", 1, "keep-weekly", 1, "keep-monthly", 1),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "hourly=4, one ID",
                        vmid0,
                        null,
                        keep("keep-hourly", 4, "keep-daily", 0),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("keep", "remove", "keep", "keep", "keep", "keep"))),
                test(
                        "yearly=2, multiple IDs",
                        null,
                        null,
                        keep("keep-hourly", 0, "keep-daily", 0, "keep-weekly", 0, "keep-monthly", 0, "keep-yearly", 2),
                        null,
                        generateExpected(VMIDS, null, List.of("remove", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "last=2,hourly=2 one ID",
                        vmid0,
                        null,
                        keep("keep-last", 2, "keep-hourly", 2),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("keep", "remove", "keep", "keep", "keep", "keep"))),
                test(
                        "last=1,monthly=2, multiple IDs",
                        null,
                        null,
                        keep("keep-last", 1, "keep-monthly", 2),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "monthly=3, one ID",
                        vmid0,
                        null,
                        keep("keep-monthly", 3),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("keep", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "last=daily=weekly=1, multiple IDs",
                        null,
                        null,
                        keep("keep-last", 1, "keep-daily", 1, "keep-weekly", 1),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "last=daily=weekly=1, others zero, multiple IDs",
                        null,
                        null,
                        keep(
                                "keep-hourly",
                                0,
                                "keep-last",
                                1,
                                "keep-daily",
                                1,
                                "keep-weekly",
                                1,
                                "keep-monthly",
                                0,
                                "keep-yearly",
                                0),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "daily=2, one ID",
                        vmid0,
                        null,
                        keep("keep-daily", 2),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("remove", "remove", "keep", "remove", "keep", "keep"))),
                test(
                        "weekly=monthly=1, multiple IDs",
                        null,
                        null,
                        keep("keep-weekly", 1, "keep-monthly", 1),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "remove", "remove", "remove", "keep", "keep"))),
                test(
                        "weekly=yearly=1, one ID",
                        vmid0,
                        null,
                        keep("keep-weekly", 1, "keep-yearly", 1),
                        null,
                        generateExpected(
                                List.of(vmid0), null, List.of("keep", "remove", "remove", "remove", "keep", "keep"))),
                test(
                        "weekly=yearly=1, one ID, type qemu",
                        vmid0,
                        "qemu",
                        keep("keep-weekly", 1, "keep-yearly", 1),
                        null,
                        generateExpected(
                                List.of(vmid0), "qemu", List.of("keep", "remove", "remove", "remove", "keep", ""))),
                test(
                        "week=yearly=1, one ID, type lxc",
                        vmid0,
                        "lxc",
                        keep("keep-last", 1),
                        null,
                        generateExpected(List.of(vmid0), "lxc", List.of("", "", "", "", "", "keep"))),
                test(
                        "yearly=1, year before 2000",
                        null,
                        null,
                        keep("keep-yearly", 1),
                        "year1970",
                        List.of(
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-lxc-321-1970_01_01-00_01_23.tar.zst",
                                        "ctime",
                                        83L,
                                        "mark",
                                        "remove",
                                        "type",
                                        "lxc",
                                        "vmid",
                                        321),
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-lxc-321-2070_01_01-00_01_00.tar.zst",
                                        "ctime",
                                        60L * 60 * 24 * (365 * 100 + 25) + 60,
                                        "mark",
                                        "keep",
                                        "type",
                                        "lxc",
                                        "vmid",
                                        321))),
                test(
                        "last=1, ne ID, year before 2000",
                        null,
                        null,
                        keep("keep-last", 1),
                        "novmid",
                        List.of(hash(
                                "volid",
                                STOREID + ":backup/vzdump-lxc-novmid.tar.gz",
                                "ctime",
                                1234L,
                                "mark",
                                "renamed",
                                "type",
                                "lxc"))),
                test(
                        "all missing, multiple IDs",
                        null,
                        null,
                        keep(),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "keep", "keep", "keep", "keep", "keep"))),
                test(
                        "all zero, multiple IDs",
                        null,
                        null,
                        keep(
                                "keep-last",
                                0,
                                "keep-hourly",
                                0,
                                "keep-daily",
                                0,
                                "keep-weekly",
                                0,
                                "keep-monthyl",
                                0,
                                "keep-yearly",
                                0),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "keep", "keep", "keep", "keep", "keep"))),
                test(
                        "some zero, some missing, multiple IDs",
                        null,
                        null,
                        keep("keep-last", 0, "keep-hourly", 0, "keep-daily", 0, "keep-monthyl", 0, "keep-yearly", 0),
                        null,
                        generateExpected(VMIDS, null, List.of("keep", "keep", "keep", "keep", "keep", "keep"))),
                test(
                        "daily=weekly=monthly=1",
                        null,
                        null,
                        keep("keep-daily", 1, "keep-weekly", 1, "keep-monthly", 1),
                        "threeway",
                        List.of(
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2019_12_25-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME - 7 * 24 * 60 * 60,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "keep"),
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2019_12_31-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME - 24 * 60 * 60,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "remove"), // month is already covered by the backup kept by keep-weekly!
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2020_01_01-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "keep"))),
                test(
                        "daily=weekly=1,weekboundary",
                        null,
                        null,
                        keep("keep-daily", 1, "keep-weekly", 1),
                        "weekboundary",
                        List.of(
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2020_12_03-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME + (366 - 31 + 2) * 24 * 60 * 60,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "remove"),
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2020_12_04-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME + (366 - 31 + 3) * 24 * 60 * 60,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "keep"),
                                hash(
                                        "volid",
                                        STOREID + ":backup/vzdump-qemu-7654-2020_12_07-12_18_21.tar.zst",
                                        "ctime",
                                        BASETIME + (366 - 31 + 6) * 24 * 60 * 60,
                                        "type",
                                        "qemu",
                                        "vmid",
                                        7654,
                                        "mark",
                                        "keep"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pveCases(
            String description,
            Integer vmid,
            String type,
            Map<String, Long> keep,
            String list,
            List<Map<String, Object>> expected) {
        String currentList = list == null ? "default" : list;
        List<VolumeInfo> listed = listVolumes(currentList, vmid).stream()
                .map(PruneBackupsTest::volume)
                .toList();

        List<PruneEntry> res = BackupPruner.mark(listed, keep, vmid, type, UTC);

        List<Map<String, Object>> got = res.stream()
                .map(PruneEntry::toMap)
                .sorted(Comparator.comparing(e -> (String) e.get("volid")))
                .toList();
        assertThat(got).isEqualTo(expected);
    }

    /** A listed backup as the mock gives it: volid, ctime, vmid and protected. */
    private static VolumeInfo volume(Map<String, Object> mocked) {
        boolean isProtected = Objects.equals(mocked.get("protected"), 1);
        return VolumeInfo.builder((String) mocked.get("volid"), "tar.zst", ContentType.BACKUP)
                .vmid((Integer) mocked.get("vmid"))
                .ctime((Long) mocked.get("ctime"))
                .backup(BackupDetails.of("unknown", null, isProtected))
                .build();
    }

    private static Arguments test(
            String description,
            Integer vmid,
            String type,
            Map<String, Long> keep,
            String list,
            List<Map<String, Object>> expected) {
        return Arguments.of(description, vmid, type, keep, list, expected);
    }

    private static Map<String, Long> keep(Object... keysAndValues) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], ((Integer) keysAndValues[i + 1]).longValue());
        }
        return m;
    }

    private static Map<String, Object> hash(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            Object v = keysAndValues[i + 1];
            m.put(
                    (String) keysAndValues[i],
                    v instanceof Long || !"ctime".equals(keysAndValues[i]) ? v : ((Number) v).longValue());
        }
        return m;
    }
}
