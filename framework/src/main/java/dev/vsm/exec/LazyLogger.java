package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A class's logger, made when it is first asked for. The first logger starts the logging
 * backend (logback: its context, its configuration, its appender), about 20 ms of a command's
 * start-up; the classes every command loads make theirs this way, so that a command that logs
 * nothing ({@code vsm status}, {@code vsm path}) never pays for it.
 *
 * <p>{@link #isDebugEnabled()} would start it too, and every command that runs a process asks
 * it; an application that configured the backend itself and left DEBUG off says so with
 * {@link #debugOff(boolean)}, and then the question costs nothing.
 */
public final class LazyLogger {
    private static volatile boolean debugOff;

    private final Class<?> owner;
    private volatile Logger logger;

    public LazyLogger(Class<?> owner) {
        this.owner = requireNonNull(owner, "owner");
    }

    /**
     * Whether DEBUG is known to be off for every vsm logger (vsm's command line: unless
     * {@code --verbose}, {@code $VSM_LOG_LEVEL} or a logback configuration file says otherwise).
     * By default ({@code false}) {@link #isDebugEnabled()} asks the backend.
     */
    public static void debugOff(boolean off) {
        debugOff = off;
    }

    /** Whether this logger writes DEBUG lines; without starting the backend after {@link #debugOff(boolean) debugOff(true)}. */
    public boolean isDebugEnabled() {
        return !debugOff && get().isDebugEnabled();
    }

    public Logger get() {
        Logger made = logger;
        if (made == null) {
            made = LoggerFactory.getLogger(owner);
            logger = made;
        }
        return made;
    }
}
