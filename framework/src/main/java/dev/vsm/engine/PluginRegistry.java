package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * The storage types vsm knows: plugins found with {@link ServiceLoader}, first the built-in ones
 * on vsm's class path, then the drop-in ones of the plugin directory, each in its own
 * {@link PluginClassLoader}. Every call into a drop-in's code runs with its class loader as the
 * thread's context class loader ({@link DropInCalls}).
 *
 * <p>A plugin that cannot be loaded — built for an API version outside
 * {@link StorageApi#acceptedRange()}, a jar with no provider, a provider that throws, a type name
 * that is taken or not an identifier — is recorded as a refused {@link Entry} with the reason
 * and the fix, reported once to the warnings consumer, and skipped; the others keep working.
 * When two plugins claim one type, the first found keeps it: built-in ones before drop-ins,
 * drop-ins in name order.
 *
 * <p>Drop-in plugins are loaded lazily, on the first question the built-in ones cannot answer
 * (a type that is not built in, the list of all types): a command that works on built-in types
 * only does not pay for opening jars. Thread-safe.
 */
public final class PluginRegistry {
    private static final Pattern TYPE_NAME = Pattern.compile("^[a-z][a-z0-9_-]*$");
    private static final String SERVICE_FILE = "META-INF/services/" + StoragePlugin.class.getName();

    /**
     * Where plugins come from.
     *
     * @param name   for messages: {@code built-in}, or the drop-in's jar or directory
     * @param loader the class loader to search
     * @param dropIn whether this is a drop-in plugin, which must provide at least one plugin
     */
    public record Source(String name, ClassLoader loader, boolean dropIn) {
        public Source {
            requireNonNull(name, "name");
            requireNonNull(loader, "loader");
        }

        /** vsm's own class path. */
        public static Source builtIn(ClassLoader loader) {
            return new Source(BUILT_IN, loader, false);
        }
    }

    /** The source name of the built-in plugins. */
    public static final String BUILT_IN = "built-in";

    /**
     * What {@code vsm plugins} shows for one plugin, loaded or refused.
     *
     * @param type       the type name, or null when the plugin could not tell it
     * @param className  the implementation class, or null when none was found
     * @param source     {@value #BUILT_IN} or the drop-in's jar or directory
     * @param apiVersion the SPI version the plugin was built for, or null when unknown
     * @param problem    why it was refused, ending with the fix; null when it loaded
     */
    public record Entry(String type, String className, String source, Integer apiVersion, String problem) {
        public Entry {
            requireNonNull(source, "source");
        }

        public boolean loaded() {
            return problem == null;
        }

        /** The one line printed when the plugin is refused. */
        public String warning() {
            return "storage plugin " + source + (className == null ? "" : " (" + className + ")") + " not loaded: "
                    + problem;
        }

        static Entry refused(String source, String className, String problem) {
            return new Entry(null, className, source, null, problem);
        }
    }

    private final Map<String, StoragePlugin> plugins = new LinkedHashMap<>();
    private final Map<String, String> typeSources = new LinkedHashMap<>();
    private final Map<String, String> typeClasses = new LinkedHashMap<>();
    private final List<Entry> entries = new ArrayList<>();
    private final Supplier<List<PluginBundle>> dropIns;
    private final ClassLoader sharedLoader;
    private final Consumer<String> warnings;
    private volatile boolean dropInsLoaded;

    private PluginRegistry(List<Source> sources, Supplier<List<PluginBundle>> dropIns, Consumer<String> warnings) {
        this.dropIns = requireNonNull(dropIns, "dropIns");
        this.warnings = requireNonNull(warnings, "warnings");
        this.sharedLoader = StoragePlugin.class.getClassLoader();
        sources.forEach(this::load);
    }

    /** The plugins on vsm's own class path, and no drop-ins. */
    public static PluginRegistry builtIn() {
        return load(List.of(Source.builtIn(PluginRegistry.class.getClassLoader())));
    }

    /** The plugins of the given sources, loaded now; refusals are only recorded. */
    public static PluginRegistry load(List<Source> sources) {
        PluginRegistry registry = new PluginRegistry(sources, List::of, w -> {});
        registry.dropInsLoaded = true;
        return registry;
    }

    /**
     * The built-in plugins now, and the drop-in plugins when first needed.
     *
     * @param builtIns the class loader of vsm's own plugins (vsm's class path)
     * @param dropIns  the drop-in plugins (a {@link PluginDirectory#scan}), asked for at most once
     * @param warnings told each refused plugin's {@link Entry#warning()}, once
     */
    public static PluginRegistry withDropIns(
            ClassLoader builtIns, Supplier<List<PluginBundle>> dropIns, Consumer<String> warnings) {
        return new PluginRegistry(List.of(Source.builtIn(builtIns)), dropIns, warnings);
    }

    private synchronized void loadDropIns() {
        if (dropInsLoaded) {
            return;
        }
        for (PluginBundle bundle : dropIns.get()) {
            open(bundle).ifPresent(this::load);
        }
        dropInsLoaded = true;
    }

    /** A class loader for a drop-in, or empty (and a refused entry) when its jars cannot be read. */
    private Optional<Source> open(PluginBundle bundle) {
        String name = bundle.location().toString();
        if (bundle.classPath().isEmpty()) {
            refuse(Entry.refused(
                    name,
                    null,
                    "the directory holds no *.jar file - put the plugin's jar and the libraries it"
                            + " needs there, or remove the directory"));
            return Optional.empty();
        }
        List<URL> urls = new ArrayList<>();
        for (Path jar : bundle.classPath()) {
            try {
                new JarFile(jar.toFile()).close(); // a corrupt jar would look like a jar without plugins
                urls.add(jar.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new IllegalStateException("a file path is always a URL: " + jar, e);
            } catch (IOException e) {
                refuse(Entry.refused(
                        name,
                        null,
                        jar.getFileName() + " is not a readable jar (" + e.getMessage()
                                + ") - replace it with a good copy or remove it"));
                return Optional.empty();
            }
        }
        return Optional.of(new Source(name, new PluginClassLoader(name, urls, sharedLoader), true));
    }

    @SuppressWarnings("try") // the swap is the point; the body does not use it
    private synchronized void load(Source source) {
        ServiceLoader<StoragePlugin> loader = ServiceLoader.load(StoragePlugin.class, source.loader());
        var it = loader.stream().iterator();
        boolean foundAny = false;
        while (true) {
            ServiceLoader.Provider<StoragePlugin> provider;
            try {
                if (!it.hasNext()) {
                    break;
                }
                provider = it.next();
            } catch (ServiceConfigurationError e) {
                foundAny = true;
                refuse(Entry.refused(
                        source.name(),
                        null,
                        "bad " + SERVICE_FILE + " entry: " + rootMessage(e) + " - list the class that implements "
                                + StoragePlugin.class.getName() + " there"));
                continue;
            }
            foundAny = true;
            String className = provider.type().getName();
            StoragePlugin plugin;
            try (ThreadContextClassLoader swap = new ThreadContextClassLoader(
                    source.dropIn() ? source.loader() : Thread.currentThread().getContextClassLoader())) {
                plugin = provider.get();
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                refuse(Entry.refused(
                        source.name(), className, "cannot create the plugin: " + rootMessage(e) + " - " + fixFor(e)));
                continue;
            }
            register(
                    source.dropIn() ? DropInCalls.plugin(plugin, source.loader(), source.name()) : plugin,
                    className,
                    source.name());
        }
        if (!foundAny && source.dropIn()) {
            refuse(Entry.refused(
                    source.name(),
                    null,
                    "no storage plugin in it (no " + SERVICE_FILE + " entry) - add that file"
                            + " naming the class that implements " + StoragePlugin.class.getName()
                            + ", or remove the jar"));
        }
    }

    private void register(StoragePlugin plugin, String className, String source) {
        String type;
        int version;
        try {
            type = plugin.type();
            version = plugin.apiVersion();
        } catch (RuntimeException | LinkageError e) {
            refuse(Entry.refused(
                    source,
                    className,
                    "the plugin fails to say its type or API version: " + rootMessage(e) + " - " + fixFor(e)));
            return;
        }
        if (!StorageApi.accepts(version)) {
            String fix = version > StorageApi.VERSION
                    ? "update vsm, or use a release of the plugin built for API " + StorageApi.VERSION
                    : "update the plugin (rebuild it against this vsm's SPI)";
            refuse(new Entry(
                    type,
                    className,
                    source,
                    version,
                    String.format(
                            "built for storage API version %d, this vsm accepts %s - %s",
                            version, StorageApi.acceptedRange(), fix)));
            return;
        }
        if (type == null || !TYPE_NAME.matcher(type).matches()) {
            refuse(
                    new Entry(
                            type,
                            className,
                            source,
                            version,
                            "type name '" + printable(type) + "' is not a valid identifier"
                                    + " (a lower case letter, then lower case letters, digits, '-' or '_') - the plugin must change it"));
            return;
        }
        if (plugins.containsKey(type)) {
            refuse(new Entry(
                    type,
                    className,
                    source,
                    version,
                    "type '" + type + "' is already provided by " + typeClasses.get(type) + " (" + typeSources.get(type)
                            + ") - remove one of the two"));
            return;
        }
        plugins.put(type, plugin);
        typeSources.put(type, source);
        typeClasses.put(type, className);
        entries.add(new Entry(type, className, source, version, null));
    }

    private void refuse(Entry entry) {
        entries.add(entry);
        warnings.accept(entry.warning());
    }

    /** The fix for a plugin that throws: a missing class means a library the plugin does not bundle. */
    static String fixFor(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NoClassDefFoundError || t instanceof ClassNotFoundException) {
                String missing =
                        t.getMessage() == null ? "" : " (" + t.getMessage().replace('/', '.') + " is missing)";
                return "the plugin needs a library it does not ship" + missing
                        + ": install it as a sub-directory holding the plugin's jar and its libraries";
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return "fix the plugin or remove it";
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null
                ? t.getClass().getSimpleName()
                : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    private static String printable(String s) {
        return s == null ? "null" : dev.vsm.spi.VolumeId.printable(s);
    }

    /** The plugin of a type; drop-ins are loaded when the type is not built in. */
    public Optional<StoragePlugin> plugin(String type) {
        synchronized (this) {
            StoragePlugin p = plugins.get(type);
            if (p != null || dropInsLoaded) {
                return Optional.ofNullable(p);
            }
        }
        loadDropIns();
        synchronized (this) {
            return Optional.ofNullable(plugins.get(type));
        }
    }

    /** The plugin of a type, or pve's {@code unsupported type '<type>'} naming the types there are. */
    public StoragePlugin require(String type) {
        return plugin(type)
                .orElseThrow(() -> StorageException.badInput(
                        "unsupported type '%s' (known types: %s)",
                        printable(type), String.join(", ", plugins().keySet())));
    }

    /** Every loaded plugin by type, built-in ones first. */
    public Map<String, StoragePlugin> plugins() {
        loadDropIns();
        synchronized (this) {
            return Collections.unmodifiableMap(new LinkedHashMap<>(plugins));
        }
    }

    /** Every plugin found, loaded or refused, in the order found. */
    public List<Entry> entries() {
        loadDropIns();
        synchronized (this) {
            return List.copyOf(entries);
        }
    }
}
