import dev.vsm.spi.StoragePlugin;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * The least work {@code vsm status}, {@code vsm path} and {@code vsm alloc} do on vsm's
 * libraries and contracts, for the floor rows of startup.sh and alloc.sh (picocli for the command
 * line, snakeyaml-engine for the configuration, plugins found by {@code ServiceLoader}; pve's
 * probes of a storage under a time limit, so that a hung mount cannot hang the command):
 * <ul>
 *   <li>picocli parses the arguments, with a model made by its programmatic API (as vsm's saved
 *       model is, without reading annotations);
 *   <li>snakeyaml-engine loads the configuration;
 *   <li>{@code ServiceLoader} finds and makes the {@link StoragePlugin}s on the class path;
 *   <li>status: each storage is probed on a thread, waited for at most 2 s: its directory and
 *       one per content type made if missing, where it leads, its capacity; one line each;
 *   <li>path: the volume's file under its storage's directory;
 *   <li>exec: the command given, run as a child process and waited for, and with {@code --sync}
 *       the file it made and its directory synced (what {@code vsm alloc} and {@code vsm clone}
 *       cannot do less than, beside the above: they run qemu-img, and docs/guarantees.md has a
 *       new image synced).
 * </ul>
 * No schema, no checks, no locks, no error messages: what a Java 17 program cannot leave out.
 * The JVM's flags and class-data sharing are the caller's (startup.sh gives it an archive made
 * as the build makes vsm's).
 *   java StatusFloor status --config FILE
 *   java StatusFloor path --config FILE STORAGE:VMID/NAME
 *   java StatusFloor exec --config FILE [--sync FILE] -- COMMAND [ARG...]
 */
public final class StatusFloor {
    private static final String[] SUBDIRS = {
        "images", "private", "dump", "template/iso", "template/cache", "snippets", "import"
    };

    public static void main(String[] args) throws IOException {
        CommandSpec status = CommandSpec.create()
                .addOption(OptionSpec.builder("--config").type(String.class).build());
        CommandSpec path = CommandSpec.create()
                .addOption(OptionSpec.builder("--config").type(String.class).build())
                .addPositional(PositionalParamSpec.builder().type(String.class).build());
        CommandSpec exec = CommandSpec.create()
                .addOption(OptionSpec.builder("--config").type(String.class).build())
                .addOption(OptionSpec.builder("--sync").type(String.class).build())
                .addPositional(PositionalParamSpec.builder().type(String[].class).arity("1..*").build());
        CommandLine cli = new CommandLine(CommandSpec.create())
                .addSubcommand("status", status)
                .addSubcommand("path", path)
                .addSubcommand("exec", exec);
        ParseResult command = cli.parseArgs(args).subcommand();
        Map<?, ?> storages = storages(Path.of(command.matchedOptionValue("--config", "")));
        int plugins = 0;
        for (StoragePlugin plugin : ServiceLoader.load(StoragePlugin.class)) {
            plugins += plugin.type().isEmpty() ? 0 : 1;
        }
        if (plugins == 0) {
            throw new IllegalStateException("no storage plugin on the class path");
        }
        if (command.commandSpec() == exec) {
            String[] argv = command.matchedPositionalValue(0, new String[0]);
            Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
            process.getInputStream().transferTo(System.out);
            int exit;
            try {
                exit = process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            String made = command.matchedOptionValue("--sync", null);
            if (exit == 0 && made != null) {
                sync(Path.of(made));
                sync(Path.of(made).toAbsolutePath().getParent());
            }
            System.exit(exit);
        }
        if (command.commandSpec() == path) {
            String volid = command.matchedPositionalValue(0, "");
            int colon = volid.indexOf(':');
            int slash = volid.indexOf('/', colon);
            Map<?, ?> storage = (Map<?, ?>) storages.get(volid.substring(0, colon));
            System.out.println(Path.of((String) storage.get("path"), "images", volid.substring(colon + 1, slash),
                    volid.substring(slash + 1)));
            return;
        }
        ExecutorService probes = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "probe");
            thread.setDaemon(true);
            return thread;
        });
        List<String> lines = new ArrayList<>();
        for (Map.Entry<?, ?> e : storages.entrySet()) {
            Path base = Path.of((String) ((Map<?, ?>) e.getValue()).get("path"));
            Future<String> line = probes.submit(() -> probe(e.getKey(), base));
            try {
                lines.add(line.get(2, TimeUnit.SECONDS));
            } catch (ExecutionException | TimeoutException ex) {
                lines.add(e.getKey() + " dir inactive");
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        System.out.println(String.format("%-10s %7s %10s %15s %15s %15s %8s",
                "Name", "Type", "Status", "Total (KiB)", "Used (KiB)", "Available (KiB)", "%"));
        lines.forEach(System.out::println);
    }

    /** fsync of a file or directory. */
    private static void sync(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private static Map<?, ?> storages(Path config) throws IOException {
        try (InputStream in = Files.newInputStream(config)) {
            Map<?, ?> document = (Map<?, ?>) new Load(LoadSettings.builder().build()).loadFromInputStream(in);
            return (Map<?, ?>) document.get("storages");
        }
    }

    private static String probe(Object id, Path base) throws IOException {
        Files.createDirectories(base);
        Path real = base.toRealPath();
        for (String sub : SUBDIRS) {
            Files.createDirectories(real.resolve(sub));
        }
        long total = real.toFile().getTotalSpace();
        long avail = real.toFile().getUsableSpace();
        long used = total - real.toFile().getFreeSpace();
        return String.format("%-10s %7s %10s %15d %15d %15d %7.2f%%",
                id, "dir", "active", total / 1024, used / 1024, avail / 1024, used * 100.0 / total);
    }
}
