package dev.vsm.lvm;

import java.util.Arrays;
import java.util.List;

/**
 * What lvm2 prints on stderr, minus the noise: {@code open failed: No medium found} comes from
 * empty (virtual) drives such as IPMI/iKVM media and says nothing about the command (pve drops it
 * too).
 */
public final class LvmStderr {
    private static final String NO_MEDIUM = "open failed: No medium found";

    private LvmStderr() {}

    /** The lines of {@code stderr} worth showing: non-blank, trimmed, noise removed. */
    public static List<String> meaningful(String stderr) {
        return Arrays.stream(stderr.split("\n"))
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !isNoise(l))
                .toList();
    }

    /** Whether a stderr line is noise. */
    public static boolean isNoise(String line) {
        return line.contains(NO_MEDIUM);
    }
}
