package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What an edit did, or under {@code --dry-run} would do.
 *
 * @param before  the configuration the edit was applied to
 * @param after   the configuration after the edit (as written, or as it would be written)
 * @param changes the {@code + ...} lines for {@code --dry-run}: {@code + write <file>}, preceded by
 *                {@code + mkdir -p <dir>} when its directory is missing; empty when the edit
 *                changes nothing (then nothing is written)
 * @param written whether the file was written
 */
public record EditResult(StorageConfigs before, StorageConfigs after, List<String> changes, boolean written) {
    public EditResult {
        requireNonNull(before, "before");
        requireNonNull(after, "after");
        changes = List.copyOf(changes);
    }
}
