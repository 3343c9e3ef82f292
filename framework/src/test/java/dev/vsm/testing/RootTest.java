package dev.vsm.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Needs root: loop devices, lvm2 on them, mounts, {@code chattr}, other users. Left out of the fast tier; without root it skips (under {@code CI=true} it fails). Selected by surefire's groups: the root pom's
 * {@code vsm.test.excludedGroups}, set to {@code guest,root,slow} by the fast tier ({@code -Pfast}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("root")
public @interface RootTest {}
