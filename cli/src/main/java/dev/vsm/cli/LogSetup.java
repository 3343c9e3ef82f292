package dev.vsm.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import dev.vsm.env.Environment;

/**
 * vsm's logging set-up, in code rather than {@code logback.xml}: parsing XML (Joran, the JDK's
 * XML parser, a security policy) cost more start-up time than every command but a listing. It
 * is what {@code etc/logback.xml} says: WARN to stderr, {@code dev.vsm} at
 * {@code $VSM_LOG_LEVEL} (DEBUG with {@code --verbose}), ZooKeeper and Curator
 * silent unless {@code $VSM_LOG_LEVEL} is set. A file named with
 * {@code -Dlogback.configurationFile=...} (in {@code VSM_JAVA_OPTS}) still wins.
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
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
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
}
