package dev.vsm.config;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Which bandwidth limit an operation runs under, by pve's rule ({@code get_bandwidth_limit} in
 * pve-storage's Storage.pm): each storage involved limits it by its {@code bwlimit}'s key for the
 * operation, else its {@code default}; the smallest limit wins, and a storage without either
 * leaves the choice to the global limits ({@code datacenter.cfg} in pve, none in vsm). An explicit
 * limit (the override) takes part as one more limit, unless the caller may change the limits it
 * would be held to: who may change every storage's configuration gets the override as it is
 * ({@code 0}: no limit), and the storages it may change do not limit it.
 *
 * <p>Limits are KiB/s; {@code null} and {@code 0} are no limit.
 */
public final class BandwidthLimits {
    /** What the caller may change, which pve asks its permission system. */
    public interface Rights {
        /** May change every storage's configuration ({@code Datastore.Allocate} on {@code /storage}). */
        boolean mayChangeStorages();

        /** May change this storage's configuration ({@code Datastore.Allocate} on {@code /storage/<id>}). */
        boolean mayChangeStorage(String id);

        /** May change the global limits ({@code Sys.Modify} on {@code /}). */
        boolean mayChangeGlobal();

        /** vsm's command line: the caller may change the configuration, and so every limit in it, or none. */
        static Rights all(boolean may) {
            return new Rights() {
                @Override
                public boolean mayChangeStorages() {
                    return may;
                }

                @Override
                public boolean mayChangeStorage(String id) {
                    return may;
                }

                @Override
                public boolean mayChangeGlobal() {
                    return may;
                }
            };
        }
    }

    private BandwidthLimits() {}

    /**
     * The limit of {@code operation} on {@code storages} for a caller with {@code rights}.
     *
     * @param storages  the storages involved (null entries are none), or null
     * @param override  the limit the caller asked for, or null
     * @param bwlimitOf a storage's {@code bwlimit} property value, or null
     * @param global    the global {@code bwlimit} value, or null (vsm has none)
     * @return the limit in KiB/s; null or 0: none
     */
    public static Double limit(
            String operation,
            List<String> storages,
            Double override,
            Function<String, String> bwlimitOf,
            String global,
            Rights rights) {
        Limit limit = new Limit(operation, override);
        boolean checkRights = override != null;
        if (storages != null && storages.stream().anyMatch(s -> s != null)) {
            if (checkRights && rights.mayChangeStorages()) {
                return override;
            }
            Set<String> done = new HashSet<>();
            for (String storage : storages) {
                if (storage == null || !done.add(storage)) {
                    continue;
                }
                if (!checkRights || !rights.mayChangeStorage(storage)) {
                    limit.apply(bwlimitOf.apply(storage));
                }
            }
            if (!limit.useGlobal) {
                return limit.value;
            }
        }
        if (!checkRights || !rights.mayChangeGlobal()) {
            limit.apply(global);
        }
        return limit.value;
    }

    /** The limit so far, and whether a storage had none for the operation. */
    private static final class Limit {
        private final String operation;
        private Double value;
        private boolean useGlobal;

        Limit(String operation, Double override) {
            this.operation = operation;
            this.value = override;
        }

        void apply(String bwlimit) {
            if (bwlimit != null) {
                Map<String, Number> limits = PropertyValues.bwlimit(bwlimit);
                Number l = limits.containsKey(operation) ? limits.get(operation) : limits.get("default");
                if (l != null) {
                    double d = l.doubleValue();
                    if (value == null || value == 0 || d < value) {
                        value = d;
                    }
                    return;
                }
            }
            useGlobal = true;
        }
    }
}
