package dev.vsm.t.guest;

import java.util.Comparator;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * Orders the guest classes after every other (set in {@code junit-platform.properties}), keeping
 * each group in JUnit's default order: the guests boot in the background from the plan's start
 * ({@link GuestPlan}), so the host runs all its own tests before it waits for the first guest.
 */
public final class GuestClassesLast implements ClassOrderer {
    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors()
                .sort(Comparator.comparing(
                        c -> GuestPlan.guestOf(c.getTestClass()).isPresent()));
    }
}
