package dev.vsm.cli.support;

/**
 * Padding for the text tables, as {@code printf}'s {@code %-Ns} and {@code %Ns} pad, built in a
 * reused {@link StringBuilder}: a {@link java.util.Formatter} per line cost a tenth of a second
 * for 10,000 volumes, and its numbers load the locale's formatting data (a few milliseconds on
 * every command that prints a table).
 */
public final class TextColumns {
    private TextColumns() {}

    /** {@code text} then spaces up to {@code width} ({@code %-<width>s}). */
    public static StringBuilder left(StringBuilder line, String text, int width) {
        line.append(text);
        for (int i = text.length(); i < width; i++) {
            line.append(' ');
        }
        return line;
    }

    /** Spaces up to {@code width}, then {@code text} ({@code %<width>s}). */
    public static StringBuilder right(StringBuilder line, String text, int width) {
        for (int i = text.length(); i < width; i++) {
            line.append(' ');
        }
        return line.append(text);
    }
}
