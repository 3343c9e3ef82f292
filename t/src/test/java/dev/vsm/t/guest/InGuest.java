package dev.vsm.t.guest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.TestAbortedException;

/**
 * Runs a test class in a {@link Guest} with a real kernel: on the host, one guest with the class's
 * disks boots, whose one JVM ({@link GuestMain}) runs the class's tests that the host selected
 * ({@code -Dtest=Class#method} runs only that method) for real; every test method, and the class's
 * set-up and tear-down, is then only reported here as it ended in the guest (a failure with the
 * guest's stack trace). The boot starts when the host's test plan does, in the background
 * ({@link GuestPlan}), or else at the class's first test. In the guest ({@link #inside()}) the
 * extension does nothing.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final InGuest GUEST = InGuest.withDisksMiB(1024);   // /dev/vda in the guest
 * }</pre>
 *
 * <p>The fast tier skips it: {@code -Dvsm.guest=skip} or {@code VSM_GUEST=skip}. Without root or
 * qemu, or when the guest cannot boot, the tests are skipped with the reason, except under
 * {@code CI=true}, where they fail: CI runs every device-mapper test.
 */
public final class InGuest implements InvocationInterceptor {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<Guest.Disk> disks;
    private final Duration timeout;
    /** The class's one boot, started ahead by {@link GuestPlan} or by the first test; guarded by this. */
    private CompletableFuture<Ran> ran;

    private boolean printed;

    /**
     * How the class's boot ended: each test's outcome by unique id, or why the whole class failed
     * or cannot run here.
     */
    private record Ran(
            Map<String, JsonNode> results, String classFailure, String unavailable, String output, String outputTail) {
        static Ran unavailable(String why) {
            return new Ran(Map.of(), null, why, "", "");
        }
    }

    private InGuest(Duration timeout, List<Guest.Disk> disks) {
        this.disks = List.copyOf(disks);
        this.timeout = timeout;
    }

    /** Virtio disks of these sizes ({@code /dev/vda}, ...); the whole class gets 30 minutes. */
    public static InGuest withDisksMiB(long... sizes) {
        return withDisks(
                java.util.Arrays.stream(sizes).mapToObj(Guest.Disk::mib).toArray(Guest.Disk[]::new));
    }

    /**
     * These virtio disks ({@code /dev/vda}, ...); the whole class gets 30 minutes (ThinLifeCycleTest
     * took 11.6 at a load average of 20-35), then qemu is killed.
     */
    public static InGuest withDisks(Guest.Disk... disks) {
        return new InGuest(Duration.ofMinutes(30), List.of(disks));
    }

    /** Whether this JVM is the one in the guest. */
    public static boolean inside() {
        return Boolean.getBoolean("vsm.in-guest");
    }

    /** Whether the developer asked to skip the guest tier. */
    static boolean skipRequested() {
        return "skip".equals(System.getProperty("vsm.guest", System.getenv("VSM_GUEST")));
    }

    @Override
    public void interceptBeforeAllMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        proceedOnlyInside(invocation);
    }

    @Override
    public void interceptBeforeEachMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        proceedOnlyInside(invocation);
    }

    @Override
    public void interceptAfterEachMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        proceedOnlyInside(invocation);
    }

    @Override
    public void interceptAfterAllMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        proceedOnlyInside(invocation);
    }

    private static void proceedOnlyInside(Invocation<Void> invocation) throws Throwable {
        if (inside()) {
            invocation.proceed();
        } else {
            invocation.skip();
        }
    }

    @Override
    public void interceptTestMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        if (inside()) {
            invocation.proceed();
            return;
        }
        invocation.skip();
        report(context);
    }

    @Override
    public void interceptTestTemplateMethod(
            Invocation<Void> invocation, ReflectiveInvocationContext<Method> method, ExtensionContext context)
            throws Throwable {
        interceptTestMethod(invocation, method, context);
    }

    /**
     * Queues the class's boot on {@code boots}, to run before the class's first test asks for it
     * ({@link GuestPlan}, when the host's test plan starts).
     */
    synchronized void runAhead(Class<?> testClass, String classUniqueId, Executor boots) {
        if (ran == null) {
            ran = CompletableFuture.supplyAsync(() -> boot(testClass, classUniqueId), boots);
        }
    }

    /** Reports, on the host, how this test ended in the guest (waiting for the class's boot, or booting it). */
    private void report(ExtensionContext context) {
        if (skipRequested()) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError("CI=true runs the guest tests: drop -Dvsm.guest=skip / VSM_GUEST=skip");
            }
            throw new TestAbortedException("skipped: the guest tier is off (-Dvsm.guest=skip or VSM_GUEST=skip)");
        }
        Ran r = ran(context);
        if (r.unavailable() != null) {
            HostTools.unavailable(r.unavailable());
        }
        if (r.classFailure() != null) {
            throw new AssertionError("the test class failed in the guest:\n" + r.classFailure());
        }
        JsonNode result = r.results().get(context.getUniqueId());
        if (result == null) {
            throw new AssertionError(
                    "the guest reported nothing for " + context.getDisplayName() + "\n" + r.outputTail());
        }
        switch (result.get("status").asText()) {
            case "SUCCESSFUL" -> {}
            case "ABORTED", "SKIPPED" ->
                throw new TestAbortedException(
                        "in the guest: " + result.get("message").asText());
            default ->
                throw new AssertionError("in the guest (" + result.get("millis").asLong() + " ms): "
                        + result.get("trace").asText());
        }
    }

    /** The class's boot, once it has ended; its output is printed with the class's first test. */
    private Ran ran(ExtensionContext context) {
        CompletableFuture<Ran> boot;
        synchronized (this) {
            if (ran == null) {
                ran = CompletableFuture.completedFuture(boot(
                        context.getRequiredTestClass(),
                        context.getParent().orElseThrow().getUniqueId()));
            }
            boot = ran;
        }
        Ran r;
        try {
            r = boot.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        synchronized (this) {
            if (!printed) {
                printed = true;
                System.out.println(r.output());
            }
        }
        return r;
    }

    /**
     * The host's {@code -Dvsm.*} properties (e.g. a test's rounds or seed), as options of the
     * guest's java: the guest's tests read them as the host's would.
     */
    private static String forwardedProperties() {
        StringBuilder options = new StringBuilder();
        for (String name : new java.util.TreeSet<>(System.getProperties().stringPropertyNames())) {
            String value = System.getProperty(name);
            if (name.startsWith("vsm.")
                    && !List.of("vsm.home", "vsm.in-guest", "vsm.guest").contains(name)
                    && name.matches("[A-Za-z0-9._-]+")
                    && !value.contains("'")) {
                options.append("'-D").append(name).append('=').append(value).append("' ");
            }
        }
        return options.toString();
    }

    /**
     * Boots the guest for the class; {@code classUniqueId} names the class in the host's test plan,
     * whose selected methods ({@code -Dtest=Class#method}) are the only ones the guest runs.
     */
    private Ran boot(Class<?> testClass, String classUniqueId) {
        Optional<String> why = Guest.unavailable();
        if (why.isPresent()) {
            return Ran.unavailable(why.get());
        }
        String classPath = System.getProperty("java.class.path");
        String scenario = """
                cd %s/t
                export CI=%s
                exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Xshare:auto -Dvsm.in-guest=true \\
                  -Dvsm.home=%s %s-cp '%s' %s %s /vsmio/results.json /vsmio/selected
                """.formatted(
                        Guest.HOME,
                        "true".equalsIgnoreCase(System.getenv("CI")) ? "true" : "false",
                        Guest.HOME,
                        forwardedProperties(),
                        classPath,
                        GuestMain.class.getName(),
                        testClass.getName());
        try (Guest.Boot boot = Guest.withDisks(disks)) {
            Optional<List<String>> selected = GuestPlan.selected(classUniqueId);
            if (selected.isPresent()) {
                Files.write(boot.io().resolve("selected"), selected.get());
            }
            Guest.Outcome o = boot.run(scenario, timeout);
            Path file = boot.io().resolve("results.json");
            Map<String, JsonNode> results = new LinkedHashMap<>();
            String classFailure = null;
            if (Files.exists(file)) {
                for (Map.Entry<String, JsonNode> e :
                        JSON.readTree(file.toFile()).properties()) {
                    results.put(e.getKey(), e.getValue());
                    if (e.getKey().endsWith("]")
                            && !e.getKey().contains("/[method:")
                            && !e.getKey().contains("/[test-template")
                            && "FAILED".equals(e.getValue().get("status").asText())) {
                        classFailure = e.getValue().get("trace").asText();
                    }
                }
            }
            if (o.status() != 0 && results.isEmpty()) {
                classFailure = "the guest's JVM exited " + o.status() + " before any test ended\n" + o.tail();
            }
            return new Ran(
                    Map.copyOf(results),
                    classFailure,
                    null,
                    "guest run of " + testClass.getSimpleName() + ": exit " + o.status() + " in "
                            + o.took().toSeconds() + " s\n" + o.output(),
                    o.tail());
        } catch (Guest.GuestFailure e) {
            return Ran.unavailable("a guest that boots: " + e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
