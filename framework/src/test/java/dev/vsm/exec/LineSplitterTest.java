package dev.vsm.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lines reach the listener as they come, whether they end in \n, \r or \r\n, and in whatever blocks they arrive. */
class LineSplitterTest {
    private final List<String> heard = new ArrayList<>();
    private final LineSplitter splitter =
            new LineSplitter(OutputListener.Channel.STDOUT, (channel, line) -> heard.add(line));

    private void write(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        splitter.write(b, 0, b.length);
    }

    @Test
    void eachCarriageReturnPieceArrivesBeforeTheCommandEnds() {
        write("    (0.00/100%)\r");
        write("    (1.33/100%)\r");
        assertThat(heard).containsExactly("    (0.00/100%)", "    (1.33/100%)");
        write("    (2.67/100%)\r    (4.00/");
        assertThat(heard).hasSize(3).last().isEqualTo("    (2.67/100%)");
        write("100%)\r");
        assertThat(heard).last().isEqualTo("    (4.00/100%)");
    }

    @Test
    void crLfIsOneLineEndAndTheRestIsALineAtTheEnd() {
        write("a\r\nb\n\nc\r");
        splitter.write('\n');
        write("tail");
        assertThat(heard).containsExactly("a", "b", "", "c");
        splitter.close();
        assertThat(heard).containsExactly("a", "b", "", "c", "tail");
        assertThat(splitter.text()).isEqualTo("a\nb\n\nc\ntail\n");
    }
}
