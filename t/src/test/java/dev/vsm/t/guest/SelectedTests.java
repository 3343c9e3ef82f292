package dev.vsm.t.guest;

import java.util.List;
import java.util.Optional;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Remembers the host's test plan (registered through {@code META-INF/services}), so that
 * {@link InGuest} runs in the guest only the methods selected on the host
 * ({@code -Dtest=Class#method}), not the whole class.
 */
public final class SelectedTests implements TestExecutionListener {
    private static volatile TestPlan plan;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        plan = null;
    }

    /**
     * The unique ids of the class's tests and test containers (methods, templates) that the plan
     * runs, or empty when no plan is known (then the guest runs the whole class).
     */
    static Optional<List<String>> of(String classUniqueId) {
        TestPlan p = plan;
        if (p == null) {
            return Optional.empty();
        }
        return p.getRoots().stream()
                .flatMap(root -> p.getDescendants(root).stream())
                .filter(id -> id.getUniqueId().equals(classUniqueId))
                .findFirst()
                .map(cls -> p.getChildren(cls).stream()
                        .map(TestIdentifier::getUniqueId)
                        .toList());
    }
}
