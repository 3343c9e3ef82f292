package dev.vsm.t.support;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Random;

/**
 * Pieces of hostile names shared by the hostile-input tests, drawn from one seeded {@link Random}:
 * shell metacharacters that would {@code touch} a marker file if they ever reached a shell,
 * unicode look-alikes and percent-encodings of dots and slashes, control characters.
 */
public final class HostileFragments {
    private final Random random;
    private final Path marker;

    /** @param marker the file a shell would make; a test asserts it never appears */
    public HostileFragments(Random random, Path marker) {
        this.random = requireNonNull(random, "random");
        this.marker = requireNonNull(marker, "marker");
    }

    /** A command substitution, pipe or list that touches the marker. */
    public String shell() {
        String[] forms = {
            "$(touch %s)", "`touch %s`", ";touch %s", "| touch %s", "&& touch %s", "$(touch${IFS}%s)", "'\"; touch %s #"
        };
        return String.format(forms[random.nextInt(forms.length)], marker);
    }

    /** Look-alikes of {@code ../}, percent-encodings, a Cyrillic letter, a zero-width space, a bidi override. */
    public String lookAlike() {
        String[] forms = {
            "\u2024\u2024\u2215",
            "\uFF0E\uFF0E\uFF0F",
            "\u2025\u2044",
            "%2e%2e%2f",
            "%2e%2e/",
            "..%2f",
            "\u0430dmin",
            "\u200b",
            "\u202e"
        };
        return forms[random.nextInt(forms.length)];
    }

    /** One control character: NUL to US, or DEL. */
    public String control() {
        int c = random.nextInt(5) == 0 ? 0x7f : random.nextInt(0x20);
        return String.valueOf((char) c);
    }
}
