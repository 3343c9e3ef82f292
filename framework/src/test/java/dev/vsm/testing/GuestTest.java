package dev.vsm.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Runs in the qemu guest with a real kernel ({@code dev.vsm.t.guest.InGuest}): minutes under TCG. Left out of the fast tier, and by {@code -Dvsm.guest=skip}. Selected by surefire's groups: the root pom's
 * {@code vsm.test.excludedGroups}, set to {@code guest,root,slow} by the fast tier ({@code -Pfast}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("guest")
public @interface GuestTest {}
