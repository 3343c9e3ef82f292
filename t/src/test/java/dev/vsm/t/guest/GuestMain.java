package dev.vsm.t.guest;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The JVM in the guest: runs one test class with the JUnit launcher (its tests then really run,
 * {@link InGuest#inside()} being true) and writes each test's outcome, by unique id, as JSON for
 * {@link InGuest} on the host to report. One JVM per boot: a JVM start costs seconds under TCG.
 *
 * <p>Arguments: the test class, the results file, and a file of the unique ids to run (one a
 * line: the methods selected on the host); without that file the whole class runs.
 */
public final class GuestMain {
    private GuestMain() {}

    /** One test's outcome. */
    public record Result(String status, String message, String trace, long millis) {}

    public static void main(String[] args) throws Exception {
        Map<String, Result> results = new LinkedHashMap<>();
        Map<String, Long> started = new LinkedHashMap<>();
        Path out = Path.of(args[1]);
        ObjectMapper json = new ObjectMapper();
        Launcher launcher = LauncherFactory.create();
        List<DiscoverySelector> selectors = new ArrayList<>();
        if (args.length > 2 && Files.exists(Path.of(args[2]))) {
            for (String id : Files.readAllLines(Path.of(args[2]))) {
                if (!id.isBlank()) {
                    selectors.add(DiscoverySelectors.selectUniqueId(id));
                }
            }
        } else {
            selectors.add(DiscoverySelectors.selectClass(args[0]));
        }
        launcher.execute(
                LauncherDiscoveryRequestBuilder.request().selectors(selectors).build(), new TestExecutionListener() {
                    @Override
                    public void executionStarted(TestIdentifier id) {
                        started.put(id.getUniqueId(), System.nanoTime());
                        if (id.isTest()) {
                            System.out.println("guest: " + id.getDisplayName() + " ...");
                        }
                    }

                    @Override
                    public void executionSkipped(TestIdentifier id, String reason) {
                        record(id, new Result("SKIPPED", reason, "", 0));
                    }

                    @Override
                    public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                        long millis = (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime()))
                                / 1_000_000;
                        String message = r.getThrowable()
                                .map(t -> String.valueOf(t.getMessage()))
                                .orElse("");
                        String trace = r.getThrowable().map(GuestMain::trace).orElse("");
                        System.out.println("guest: " + id.getDisplayName() + " " + r.getStatus() + " in " + millis
                                + " ms" + (trace.isEmpty() ? "" : "\n" + trace));
                        // a class-level failure (@BeforeAll, @AfterAll) is recorded too: the host fails every test with
                        // it
                        record(id, new Result(r.getStatus().name(), message, trace, millis));
                    }

                    private void record(TestIdentifier id, Result result) {
                        results.put(id.getUniqueId(), result);
                        try {
                            Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
                            json.writeValue(tmp.toFile(), results);
                            Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                });
        System.exit(0);
    }

    private static String trace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
