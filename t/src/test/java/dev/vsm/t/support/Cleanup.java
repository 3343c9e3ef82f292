package dev.vsm.t.support;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test set up and must undo whatever its outcome (loop devices, mounts), undone after each
 * test, last first, before JUnit removes the test's {@code @TempDir}. Register it with
 * {@code @RegisterExtension final Cleanup cleanup = new Cleanup();}.
 */
public final class Cleanup implements AfterEachCallback {
    private final List<AutoCloseable> undo = new ArrayList<>();

    /** Undoes {@code resource} after the test; returns it. */
    public <T extends AutoCloseable> T add(T resource) {
        undo.add(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception first = null;
        for (int i = undo.size() - 1; i >= 0; i--) {
            try {
                undo.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        undo.clear();
        if (first != null) {
            throw first;
        }
    }
}
