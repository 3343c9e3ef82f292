package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** LogSetup's hand-made line is the line logback's PatternLayout makes of {@link LogSetup#PATTERN}. */
class LogSetupTest {
    private final LoggerContext context = new LoggerContext();

    @Test
    void linesAreThePatternsLines() {
        PatternLayout pattern = new PatternLayout();
        pattern.setContext(context);
        pattern.setPattern(LogSetup.PATTERN);
        pattern.start();
        LogSetup.Line line = new LogSetup.Line();
        line.setContext(context);
        line.start();
        Logger logger = context.getLogger("dev.vsm.exec.ProcessCommandRunner");
        Exception cause = new IOException("no such file", new IllegalStateException("inner"));
        for (LoggingEvent event : new LoggingEvent[] {
            new LoggingEvent("x", logger, Level.DEBUG, "run {} with {}", null, new Object[] {"qemu-img", 3}),
            new LoggingEvent("x", logger, Level.WARN, "failed", cause, null),
            new LoggingEvent("x", context.getLogger("short"), Level.INFO, "plain", null, null)
        }) {
            assertThat(line.doLayout(event)).isEqualTo(pattern.doLayout(event));
        }
    }
}
