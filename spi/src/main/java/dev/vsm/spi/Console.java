package dev.vsm.spi;

/** Where a plugin tells the user what it does: progress and notes to stdout, warnings to stderr. */
public interface Console {
    void info(String line);

    void warn(String line);
}
