package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/**
 * One thing wrong with a configuration, rendered as one line:
 * {@code <file>:<line>: storage '<id>': <key>: <message>}, leaving out what does not apply
 * (no file for values given to an edit, no key for a whole-section problem, ...).
 *
 * @param file    the configuration file, or null for values given on the command line
 * @param line    the 1-based line, or 0 when unknown
 * @param storage the storage id, or null
 * @param key     the property, or null when the message names it or concerns the section
 * @param message what is wrong, in pve's words where pve has them
 */
record ConfigProblem(String file, int line, String storage, String key, String message) {
    public ConfigProblem {
        requireNonNull(message, "message");
    }

    /** The one-line description. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (file != null) {
            b.append(file);
            if (line > 0) {
                b.append(':').append(line);
            }
            b.append(": ");
        }
        if (storage != null) {
            b.append("storage '").append(VolumeId.printable(storage)).append("': ");
        }
        if (key != null) {
            b.append(VolumeId.printable(key)).append(": ");
        }
        return b.append(message).toString();
    }

    @Override
    public String toString() {
        return describe();
    }
}
