package dev.vsm.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class JsonTreeTest {
    /** {@code qemu-img info --output=json} of a linked clone with a snapshot, as qemu-img 7.2 printed it. */
    private static final String INFO = """
            {
                "backing-filename-format": "qcow2",
                "snapshots": [
                    {
                        "icount": 0,
                        "vm-clock-nsec": 0,
                        "name": "before-upgrade",
                        "date-sec": 1796358790,
                        "date-nsec": 365810000,
                        "vm-clock-sec": 0,
                        "id": "1",
                        "vm-state-size": 0
                    }
                ],
                "virtual-size": 1073741824,
                "filename": "c.qcow2",
                "cluster-size": 131072,
                "format": "qcow2",
                "actual-size": 405504,
                "format-specific": {
                    "type": "qcow2",
                    "data": {
                        "compat": "1.1",
                        "compression-type": "zlib",
                        "lazy-refcounts": false,
                        "refcount-bits": 16,
                        "corrupt": false,
                        "extended-l2": true
                    }
                },
                "full-backing-filename": "b.qcow2",
                "backing-filename": "b.qcow2",
                "dirty-flag": false
            }
            """;

    @Test
    void readsAToolsDocumentField() throws IOException {
        JsonTree info = JsonTree.parse(INFO);
        assertThat(info.path("virtual-size").asLong(-1)).isEqualTo(1073741824L);
        assertThat(info.path("format").text(null)).isEqualTo("qcow2");
        assertThat(info.path("format-specific").path("data").path("extended-l2").asBoolean(false))
                .isTrue();
        assertThat(info.path("format-specific")
                        .path("data")
                        .path("lazy-refcounts")
                        .asBoolean(true))
                .isFalse();
        assertThat(info.path("snapshots").elements()).hasSize(1);
        assertThat(info.path("snapshots").elements().get(0).path("name").text(null))
                .isEqualTo("before-upgrade");
        assertThat(info.path("backing-filename").text(null)).isEqualTo("b.qcow2");
    }

    @Test
    void aMissingFieldOrAFieldOfANonObjectIsTheMissingValue() throws IOException {
        JsonTree info = JsonTree.parse(INFO);
        for (JsonTree missing : new JsonTree[] {
            info.path("no-such-field"),
            info.path("format").path("type"),
            info.path("snapshots").path("name"),
            info.path("no").path("deeper").path("still")
        }) {
            assertThat(missing.isMissing()).isTrue();
            assertThat(missing.text("?")).isEqualTo("?");
            assertThat(missing.asLong(7)).isEqualTo(7);
            assertThat(missing.asBoolean(true)).isTrue();
            assertThat(missing.elements()).isEmpty();
            assertThat(missing.has("anything")).isFalse();
        }
    }

    @Test
    void nullIsAFieldThatIsThereWithNoValue() throws IOException {
        JsonTree doc = JsonTree.parse("{\"label\": null}");
        assertThat(doc.has("label")).isTrue();
        assertThat(doc.path("label").isMissing()).isFalse();
        assertThat(doc.path("label").text("none")).isEqualTo("none");
        assertThat(doc.path("label").asLong(3)).isEqualTo(3);
    }

    @Test
    void scalarsReadAsTextAsWrittenAndNumbersOnlyAsNumbers() throws IOException {
        JsonTree doc = JsonTree.parse(
                "{\"offset\": \"0x438\", \"size\": 9007199254740993, \"ratio\": 2.75, \"big\": 1e3, \"yes\": true,"
                        + " \"quoted\": \"42\"}");
        assertThat(doc.path("offset").text(null)).isEqualTo("0x438");
        assertThat(doc.path("offset").isString()).isTrue();
        assertThat(doc.path("size").text(null)).isEqualTo("9007199254740993");
        assertThat(doc.path("size").asLong(0)).isEqualTo(9007199254740993L);
        assertThat(doc.path("size").isString()).isFalse();
        assertThat(doc.path("ratio").asLong(0)).isEqualTo(2);
        assertThat(doc.path("big").asLong(0)).isEqualTo(1000);
        assertThat(doc.path("yes").text(null)).isEqualTo("true");
        assertThat(doc.path("yes").asBoolean(false)).isTrue();
        assertThat(doc.path("quoted").asLong(-1)).as("a string is not a number").isEqualTo(-1);
        assertThat(doc.path("quoted").asBoolean(false)).isFalse();
        assertThat(doc.text("an object has no text")).isEqualTo("an object has no text");
    }

    @Test
    void aToolThatPrintedNothingGaveTheMissingValue() throws IOException {
        assertThat(JsonTree.parse("").isMissing()).isTrue();
        assertThat(JsonTree.parse(" \n").isMissing()).isTrue();
    }

    @Test
    void textThatIsNotOneJsonValueIsRefused() {
        for (String bad : new String[] {
            "qemu-img: Could not open 'x': No such file", "{\"a\": 1", "{\"a\": 1} {\"b\": 2}", "[1, 2,]", "{\"a\" 1}"
        }) {
            assertThatThrownBy(() -> JsonTree.parse(bad)).as(bad).isInstanceOf(IOException.class);
        }
    }

    @Test
    void aDuplicateFieldKeepsItsLastValue() throws IOException {
        assertThat(JsonTree.parse("{\"a\": 1, \"a\": 2}").path("a").asLong(0)).isEqualTo(2);
    }
}
