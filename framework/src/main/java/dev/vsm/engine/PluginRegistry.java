package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.regex.Pattern;

/**
 * The storage types vsm knows: plugins found with {@link ServiceLoader} in one or more
 * {@link Source}s (the class path for built-in plugins; later, one class loader per drop-in jar).
 * A plugin that cannot be loaded is recorded with the reason and skipped; the others keep working.
 */
public final class PluginRegistry {
    private static final Pattern TYPE_NAME = Pattern.compile("^[a-z][a-z0-9_-]*$");

    /** Where plugins come from: a name for messages (built-in, a jar path) and the class loader to search. */
    public record Source(String name, ClassLoader loader) {
        public Source {
            requireNonNull(name, "name");
            requireNonNull(loader, "loader");
        }
    }

    /** What {@code vsm plugins} shows for one plugin. {@code problem} is null when it loaded. */
    public record Entry(String type, String className, String source, Integer apiVersion, String problem) {
        public boolean loaded() {
            return problem == null;
        }
    }

    private final Map<String, StoragePlugin> plugins;
    private final List<Entry> entries;

    private PluginRegistry(Map<String, StoragePlugin> plugins, List<Entry> entries) {
        this.plugins = Collections.unmodifiableMap(plugins);
        this.entries = List.copyOf(entries);
    }

    /** The plugins on vsm's own class path. */
    public static PluginRegistry builtIn() {
        return load(List.of(new Source("built-in", PluginRegistry.class.getClassLoader())));
    }

    public static PluginRegistry load(List<Source> sources) {
        Map<String, StoragePlugin> plugins = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Source source : sources) {
            ServiceLoader<StoragePlugin> loader = ServiceLoader.load(StoragePlugin.class, source.loader());
            for (ServiceLoader.Provider<StoragePlugin> provider : providers(loader, source, entries)) {
                String className = provider.type().getName();
                StoragePlugin plugin;
                try {
                    plugin = provider.get();
                } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                    entries.add(new Entry(null, className, source.name(), null,
                            "cannot create the plugin: " + rootMessage(e) + " - fix or remove the plugin"));
                    continue;
                }
                entries.add(register(plugin, className, source.name(), plugins));
            }
        }
        return new PluginRegistry(plugins, entries);
    }

    private static List<ServiceLoader.Provider<StoragePlugin>> providers(ServiceLoader<StoragePlugin> loader, Source source,
                                                                        List<Entry> entries) {
        List<ServiceLoader.Provider<StoragePlugin>> list = new ArrayList<>();
        var it = loader.stream().iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                list.add(it.next());
            } catch (ServiceConfigurationError e) {
                entries.add(new Entry(null, null, source.name(), null, "bad service entry: " + rootMessage(e)));
            }
        }
        return list;
    }

    private static Entry register(StoragePlugin plugin, String className, String source, Map<String, StoragePlugin> plugins) {
        String type;
        int version;
        try {
            type = plugin.type();
            version = plugin.apiVersion();
        } catch (RuntimeException | LinkageError e) {
            return new Entry(null, className, source, null, "plugin fails to describe itself: " + rootMessage(e));
        }
        if (type == null || !TYPE_NAME.matcher(type).matches()) {
            return new Entry(type, className, source, version,
                    "type name '" + type + "' is not a valid identifier (lower case letters, digits, '-', '_')");
        }
        if (!StorageApi.accepts(version)) {
            return new Entry(type, className, source, version, String.format(
                    "built for storage API version %d, this vsm accepts %s - %s", version, StorageApi.acceptedRange(),
                    version > StorageApi.VERSION ? "update vsm" : "update the plugin"));
        }
        if (plugins.containsKey(type)) {
            return new Entry(type, className, source, version,
                    "type '" + type + "' is already provided by " + plugins.get(type).getClass().getName() + " - remove one of them");
        }
        plugins.put(type, plugin);
        return new Entry(type, className, source, version, null);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    public Optional<StoragePlugin> plugin(String type) {
        return Optional.ofNullable(plugins.get(type));
    }

    /** The plugin of a type, or pve's {@code unsupported type '<type>'} naming the types there are. */
    public StoragePlugin require(String type) {
        StoragePlugin p = plugins.get(type);
        if (p == null) {
            throw StorageException.badInput("unsupported type '%s' (known types: %s)", type, String.join(", ", plugins.keySet()));
        }
        return p;
    }

    public Map<String, StoragePlugin> plugins() {
        return plugins;
    }

    /** Every plugin found, loaded or refused, in the order found. */
    public List<Entry> entries() {
        return entries;
    }
}
