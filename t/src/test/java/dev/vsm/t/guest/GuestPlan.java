package dev.vsm.t.guest;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * The host's test plan, as the guest classes need it (registered through {@code META-INF/services}):
 *
 * <ul>
 *   <li>{@link InGuest} runs in the guest only the methods selected on the host
 *       ({@code -Dtest=Class#method}), not the whole class;
 *   <li>when the plan starts, every guest class in it is queued to boot on one background thread,
 *       one guest after another in the plan's order, so that the guests (which spend minutes under
 *       TCG) run while the host runs its own tests; a guest class's tests then wait only for what
 *       is left of its own boot. When the plan ends, a boot still queued is dropped and one still
 *       running is killed.
 * </ul>
 */
public final class GuestPlan implements TestExecutionListener {
    private static volatile TestPlan plan;
    private static ExecutorService boots;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
        if (InGuest.inside() || InGuest.skipRequested()) {
            return;
        }
        for (TestIdentifier id : descendants(testPlan)) {
            Optional<InGuest> guest = id.getSource()
                    .filter(ClassSource.class::isInstance)
                    .flatMap(source -> guestOf(((ClassSource) source).getJavaClass()));
            if (guest.isPresent()) {
                guest.get().runAhead(((ClassSource) id.getSource().get()).getJavaClass(), id.getUniqueId(), boots());
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        plan = null;
        ExecutorService running;
        synchronized (GuestPlan.class) {
            running = boots;
            boots = null;
        }
        if (running != null) {
            running.shutdownNow(); // interrupts a boot: Guest.Boot kills its qemu
            try {
                running.awaitTermination(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static synchronized ExecutorService boots() {
        if (boots == null) {
            boots = Executors.newSingleThreadExecutor(task -> {
                Thread t = new Thread(task, "guest-boots");
                t.setDaemon(true);
                return t;
            });
        }
        return boots;
    }

    private static List<TestIdentifier> descendants(TestPlan p) {
        return p.getRoots().stream()
                .flatMap(root -> p.getDescendants(root).stream())
                .toList();
    }

    /** The class's {@code static InGuest} extension, if it has one. */
    static Optional<InGuest> guestOf(Class<?> testClass) {
        for (Field f : testClass.getDeclaredFields()) {
            if (f.getType() == InGuest.class && Modifier.isStatic(f.getModifiers())) {
                try {
                    f.setAccessible(true);
                    return Optional.ofNullable((InGuest) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + testClass.getName() + "." + f.getName(), e);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The unique ids of the class's tests and test containers (methods, templates) that the plan
     * runs, or empty when no plan is known (then the guest runs the whole class).
     */
    static Optional<List<String>> selected(String classUniqueId) {
        TestPlan p = plan;
        if (p == null) {
            return Optional.empty();
        }
        return descendants(p).stream()
                .filter(id -> id.getUniqueId().equals(classUniqueId))
                .findFirst()
                .map(cls -> p.getChildren(cls).stream()
                        .map(TestIdentifier::getUniqueId)
                        .toList());
    }
}
