package dev.vsm.cli.support;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;
import picocli.CommandLine.Option;

/** The {@code --output-format} mixin every command takes: text (pvesm's columns), json, json-pretty or yaml. */
public final class OutputOptions {
    public enum Format {
        text,
        json,
        json_pretty,
        yaml
    }

    @Option(
            names = "--output-format",
            paramLabel = "FORMAT",
            converter = FormatConverter.class,
            description = "text, json, json-pretty or yaml (default: text)")
    Format format = Format.text;

    /** Prints {@code data} in the chosen machine format, or runs {@code text} for the text format. */
    public void print(PrintStream out, Object data, Consumer<PrintStream> text) {
        switch (format) {
            case text -> out.print(rendered(text));
            case json -> out.println(PlainData.json(data, false));
            case json_pretty -> out.println(PlainData.json(data, true));
            case yaml -> {
                out.print(new Dump(DumpSettings.builder()
                                .setDefaultFlowStyle(FlowStyle.BLOCK)
                                .build())
                        .dumpToString(PlainData.plain(data)));
            }
        }
        out.flush();
    }

    /** Prints {@code data} in the chosen machine format; the text format prints it as JSON too (a command whose answer is pve's JSON). */
    public void printJsonByDefault(PrintStream out, Object data) {
        print(out, data, o -> o.println(PlainData.json(data, false)));
    }

    /**
     * The text output, rendered whole before any of it is written: {@code out} (System.out) flushes
     * every few dozen bytes, so printing a table straight to it took dozens of write(2) calls per
     * line; one string reaches it in a few large writes.
     */
    private static String rendered(Consumer<PrintStream> text) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(8192);
        PrintStream lines = new PrintStream(buffer, false, StandardCharsets.UTF_8);
        text.accept(lines);
        lines.flush();
        return buffer.toString(StandardCharsets.UTF_8);
    }

    public boolean isText() {
        return format == Format.text;
    }

    static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "invalid output format '" + value + "' (use text, json, json-pretty or yaml)");
            }
        }
    }
}
