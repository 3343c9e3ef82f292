package dev.vsm.cli.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.common.FlowStyle;

/** The machine formats' writer, against jackson-databind's ObjectMapper (what vsm wrote with before). */
class PlainDataTest {
    private enum Kind {
        images,
        rootdir
    }

    /** Every kind of value a command gives, nested, with what JSON makes awkward (quotes, control characters, non-ASCII). */
    private static Map<String, Object> everything() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("zeta", 1);
        inner.put("alpha", "quote \" backslash \\ tab \t newline \n bell \u0007 é 中");
        inner.put("none", null);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("int", 42);
        m.put("long", Long.MAX_VALUE);
        m.put("negative", -1L);
        m.put("short", (short) 7);
        m.put("byte", (byte) -3);
        m.put("double", 0.1);
        m.put("float", 2.5f);
        m.put("big", new BigInteger("123456789012345678901234567890"));
        m.put("decimal", new BigDecimal("1.50"));
        m.put("true", true);
        m.put("false", false);
        m.put("null", null);
        m.put("enum", Kind.rootdir);
        m.put("list", List.of("a", 1, false));
        m.put("empty list", List.of());
        m.put("empty map", Map.of());
        m.put("array", new Object[] {"x", null, 3});
        m.put("set", Set.of(Kind.images));
        m.put("nested", List.of(inner, List.of(List.of())));
        return m;
    }

    @Test
    void jsonIsWhatObjectMapperWrote() throws Exception {
        Map<String, Object> data = everything();
        assertThat(PlainData.json(data, false)).isEqualTo(new ObjectMapper().writeValueAsString(data));
        assertThat(PlainData.json(List.of(data, data), false))
                .isEqualTo(new ObjectMapper().writeValueAsString(List.of(data, data)));
    }

    @Test
    void prettyJsonIsWhatObjectMapperIndented() throws Exception {
        Map<String, Object> data = everything();
        assertThat(PlainData.json(data, true))
                .isEqualTo(new ObjectMapper()
                        .enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(data))
                .contains("\n  \"int\" : 42,\n");
    }

    @Test
    void scalarsStandAlone() throws Exception {
        for (Object scalar : Arrays.asList("text", 3, 4.5, true, null, Kind.images)) {
            assertThat(PlainData.json(scalar, false)).isEqualTo(new ObjectMapper().writeValueAsString(scalar));
        }
    }

    @Test
    void yamlIsWhatObjectMapperConvertedItTo() {
        Map<String, Object> data = everything();
        // convertValue read a BigDecimal back as a double (1.50 became 1.5); no command gives one
        data.remove("decimal");
        assertThat(yaml(PlainData.plain(data))).isEqualTo(yaml(new ObjectMapper().convertValue(data, Object.class)));
        Map<?, ?> plain = (Map<?, ?>) PlainData.plain(data);
        assertThat(plain.get("array")).isEqualTo(Arrays.asList("x", null, 3));
        assertThat(plain.get("enum")).isEqualTo("rootdir");
    }

    private static String yaml(Object plain) {
        return new Dump(DumpSettings.builder()
                        .setDefaultFlowStyle(FlowStyle.BLOCK)
                        .build())
                .dumpToString(plain);
    }

    @Test
    void anythingButPlainDataIsRefusedNamingItsClass() {
        Map<String, Object> withPath = new LinkedHashMap<>();
        withPath.put("path", Path.of("/var/lib/vz"));
        assertThatThrownBy(() -> PlainData.json(withPath, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not plain data")
                .hasMessageContaining("Path");
        assertThatThrownBy(() -> PlainData.plain(List.of(new Object())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Object");
        assertThatThrownBy(() -> PlainData.json(Map.of(1, "one"), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("map key that is not a string: java.lang.Integer");
    }
}
