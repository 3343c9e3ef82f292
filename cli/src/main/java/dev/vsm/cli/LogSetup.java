package dev.vsm.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.vsm.env.Environment;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * vsm's logging set-up, in code rather than {@code logback.xml}: parsing XML (Joran, the JDK's
 * XML parser, a security policy) cost more start-up time than every command but a listing. It
 * is what {@code etc/logback.xml} says: WARN to stderr, {@code dev.vsm} at
 * {@code $VSM_LOG_LEVEL} (DEBUG with {@code --verbose}), ZooKeeper and Curator
 * silent unless {@code $VSM_LOG_LEVEL} is set. A file named with
 * {@code -Dlogback.configurationFile=...} (in {@code VSM_JAVA_OPTS}) still wins. Its lines are
 * laid out by {@link Line}, not logback's {@code PatternLayout}, whose pattern parser and
 * converters were 150 of the 220 logback classes every command loaded (each command makes a
 * logger, few of them log).
 *
 * <p>Found by logback through {@code META-INF/services/ch.qos.logback.classic.spi.Configurator}.
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        Line layout = new Line();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.WARN);
        root.addAppender(stderr);
        context.getLogger("dev.vsm").setLevel(Level.toLevel(level(), Level.WARN));
        // cluster mode: ZooKeeper and Curator log every refused connection; vsm says it in one line
        for (String noisy : new String[] {"org.apache.zookeeper", "org.apache.curator"}) {
            context.getLogger(noisy).setLevel(Level.toLevel(level(), Level.OFF));
        }
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** {@code VSM_LOG_LEVEL}: the system property (set by {@code --verbose}), else the environment. */
    private static String level() {
        String level = System.getProperty("VSM_LOG_LEVEL");
        return level != null ? level : Environment.system().get("VSM_LOG_LEVEL");
    }

    /** {@link #PATTERN}'s line, and the stack trace of an event's exception after it, as PatternLayout writes them. */
    static final class Line extends LayoutBase<ILoggingEvent> {
        private final TargetLengthBasedClassNameAbbreviator logger = new TargetLengthBasedClassNameAbbreviator(20);

        /** Made with the first line: java.time's formatter and time zone cost a command that logs nothing a few ms. */
        private static final class Clock {
            static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");
            static final ZoneId ZONE = ZoneId.systemDefault();
        }

        @Override
        public String doLayout(ILoggingEvent event) {
            StringBuilder line = new StringBuilder(128);
            Clock.TIME.formatTo(Instant.ofEpochMilli(event.getTimeStamp()).atZone(Clock.ZONE), line);
            String level = event.getLevel().toString();
            line.append(' ')
                    .append(level)
                    .append(" ".repeat(Math.max(0, 5 - level.length())))
                    .append(' ')
                    .append(logger.abbreviate(event.getLoggerName()))
                    .append(" - ")
                    .append(event.getFormattedMessage())
                    .append(CoreConstants.LINE_SEPARATOR);
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                line.append(ThrowableProxyUtil.asString(thrown));
            }
            return line.toString();
        }
    }
}
