package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A class's logger, made when it is first asked for. The first logger starts the logging
 * backend (logback: its context, its configuration, its appender), about 20 ms of a command's
 * start-up; the classes every command loads make theirs this way, so that a command that logs
 * nothing ({@code vsm status}, {@code vsm path}) never pays for it.
 */
public final class LazyLogger {
    private final Class<?> owner;
    private volatile Logger logger;

    public LazyLogger(Class<?> owner) {
        this.owner = requireNonNull(owner, "owner");
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
