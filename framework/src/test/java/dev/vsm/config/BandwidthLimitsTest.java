package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * pve's rule for which bandwidth limit wins, with the vectors of pve-storage's
 * {@code run_bwlimit_tests.pl}: its storages, its global ({@code datacenter.cfg}) limits, its five
 * callers and their rights, and each case's expected limit.
 */
class BandwidthLimitsTest {
    private static final String GLOBAL = "default=100,move=80,restore=60";

    private static final Map<String, String> STORAGES = Map.of(
            "nolimit", "",
            "d50", "default=50",
            "d50m40r30", "default=50,move=40,restore=30",
            "d20m40r30", "default=20,move=40,restore=30",
            "d200m400r300", "default=200,move=400,restore=300",
            "d10", "default=10",
            "m50", "move=50",
            "d200", "default=200");

    /** The callers: root may change everything; user2 the global limits; user3 every storage; user4 one. */
    private static BandwidthLimits.Rights rights(String user) {
        return new BandwidthLimits.Rights() {
            @Override
            public boolean mayChangeStorages() {
                return Set.of("root", "user3").contains(user);
            }

            @Override
            public boolean mayChangeStorage(String id) {
                return mayChangeStorages() || user.equals("user4") && id.equals("d20m40r30");
            }

            @Override
            public boolean mayChangeGlobal() {
                return user.equals("root") || user.equals("user2");
            }
        };
    }

    /** caller, operation, storages ({@code -}: none given), override ({@code -}: none), expected. */
    private static final String VECTORS = """
            root unknown [nolimit] - 100
            root move [nolimit] - 80
            root restore [nolimit] - 60
            root unknown [d50m40r30] - 50
            root move [d50m40r30] - 40
            root restore [d50m40r30] - 30
            root unknown [nolimit] 0 0
            root move [nolimit] 0 0
            root restore [nolimit] 0 0
            root unknown [d50m40r30] 0 0
            root move [d50m40r30] 0 0
            root restore [d50m40r30] 0 0
            root migrate - 100 100
            root migrate [] 100 100
            root migrate [undef] - 100
            root migrate [undef,undef] 200 200
            user1 unknown [nolimit] - 100
            user1 move [nolimit] - 80
            user1 restore [nolimit] - 60
            user1 unknown [d50m40r30] - 50
            user1 move [d50m40r30] - 40
            user1 restore [d50m40r30] - 30
            user1 unknown [d200m400r300] - 200
            user1 move [d200m400r300] - 400
            user1 restore [d200m400r300] - 300
            user1 unknown [d50] - 50
            user1 move [d50] - 50
            user1 restore [d50] - 50
            user2 unknown [nolimit] 0 0
            user2 unknown [nolimit] - 100
            user2 move [nolimit] - 80
            user2 restore [nolimit] - 60
            user2 restore [nolimit] 0 0
            user2 move [nolimit] 0 0
            user2 unknown [d50m40r30] - 50
            user2 restore [d50m40r30] - 30
            user2 move [d50m40r30] - 40
            user3 unknown [nolimit] - 100
            user3 unknown [nolimit] 80 80
            user3 unknown [nolimit] 0 0
            user3 move [nolimit] - 80
            user3 move [nolimit] 0 0
            user3 restore [nolimit] - 60
            user3 restore [nolimit] 0 0
            user3 unknown [d50m40r30] 0 0
            user3 unknown [d50m40r30] - 50
            user3 unknown [d50m40r30] 0 0
            user3 move [d50m40r30] - 40
            user3 move [d50m40r30] 0 0
            user3 restore [d50m40r30] - 30
            user3 restore [d50m40r30] 0 0
            user4 unknown [nolimit] 10 10
            user4 unknown [nolimit] - 100
            user4 unknown [nolimit] 0 100
            user4 move [nolimit] - 80
            user4 restore [nolimit] - 60
            user4 unknown [d50m40r30] - 50
            user4 move [d50m40r30] - 40
            user4 restore [d50m40r30] - 30
            user4 unknown [d20m40r30] - 20
            user4 unknown [d20m40r30] 0 0
            user4 move [d20m40r30] - 40
            user4 move [d20m40r30] 0 0
            user4 move [d20m40r30] 10 10
            user4 move [d20m40r30] 300 300
            user4 restore [d20m40r30] - 30
            user4 restore [d20m40r30] 0 0
            user4 unknown [d50m40r30,d20m40r30] 0 50
            user4 move [d50m40r30,d20m40r30] 0 40
            user4 restore [d50m40r30,d20m40r30] 0 30
            user4 unknown [d50m40r30,d20m40r30] - 20
            user4 unknown [d10,d20m40r30] - 10
            user4 move [d10,d20m40r30] - 10
            user4 restore [d10,d20m40r30] - 10
            user4 restore [d10,d20m40r30] 5 5
            user4 restore [d200,d200m400r300] 65 65
            user4 restore [d200,d200m400r300] 400 200
            user4 restore [d200,d200m400r300] 0 200
            user4 restore [d200,d200m400r300] 1 1
            user4 restore [d10,d20m40r30] 500 10
            user4 unknown [nolimit,d20m40r30] 0 100
            user4 move [nolimit,d20m40r30] 0 80
            user4 restore [nolimit,d20m40r30] 0 60
            user4 unknown [nolimit,d20m40r30] - 20
            user4 move [nolimit,d20m40r30] - 40
            user4 restore [nolimit,d20m40r30] - 30
            user4 restore [d20m40r30,m50] 200 60
            user4 move [nolimit,undef] 40 40
            user4 move - 100 80
            user4 move [undef] 100 80
            user4 move [undef] - 80
            """;

    @Test
    void pvesVectors() {
        List<String> cases = VECTORS.lines().toList();
        assertThat(cases).hasSize(91);
        for (String line : cases) {
            String[] f = line.strip().split(" ");
            List<String> storages = null;
            if (!f[2].equals("-")) {
                storages = new ArrayList<>();
                for (String s : f[2].substring(1, f[2].length() - 1).split(",", -1)) {
                    if (!s.isEmpty()) {
                        storages.add(s.equals("undef") ? null : s);
                    }
                }
            }
            Double override = f[3].equals("-") ? null : Double.valueOf(f[3]);
            Double limit = BandwidthLimits.limit(
                    f[1], storages, override, id -> emptyToNull(STORAGES.get(id)), GLOBAL, rights(f[0]));
            assertThat(limit == null ? 0 : limit).as(line).isEqualTo(Double.parseDouble(f[4]));
        }
    }

    /** vsm's command line has no global limits: a storage without one for the operation leaves it unlimited. */
    @Test
    void withoutGlobalLimitsAStorageWithoutOneLimitsNothing() {
        BandwidthLimits.Rights none = BandwidthLimits.Rights.all(false);
        assertThat(BandwidthLimits.limit("move", List.of("nolimit"), null, id -> null, null, none))
                .isNull();
        assertThat(BandwidthLimits.limit(
                        "migration", List.of("m50", "d200"), null, BandwidthLimitsTest::of, null, none))
                .isEqualTo(200.0);
        assertThat(BandwidthLimits.limit("migration", List.of("d200"), 50.0, BandwidthLimitsTest::of, null, none))
                .as("an override may lower it")
                .isEqualTo(50.0);
        assertThat(BandwidthLimits.limit("migration", List.of("d200"), 0.0, BandwidthLimitsTest::of, null, none))
                .as("but not lift it")
                .isEqualTo(200.0);
        BandwidthLimits.Rights all = BandwidthLimits.Rights.all(true);
        assertThat(BandwidthLimits.limit("migration", List.of("d200"), 0.0, BandwidthLimitsTest::of, null, all))
                .as("unless the caller may change the storages")
                .isEqualTo(0.0);
        assertThat(BandwidthLimits.limit("migration", List.of("d200"), null, BandwidthLimitsTest::of, null, all))
                .as("who asks for nothing gets the storages' limit")
                .isEqualTo(200.0);
    }

    private static String of(String id) {
        return emptyToNull(STORAGES.get(id));
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
