package dev.vsm.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Takes long even on the host (processes killed in a loop, races of many processes, ZooKeeper sessions expiring). Left out of the fast tier. Selected by surefire's groups: the root pom's
 * {@code vsm.test.excludedGroups}, set to {@code guest,root,slow} by the fast tier ({@code -Pfast}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("slow")
public @interface SlowTest {}
