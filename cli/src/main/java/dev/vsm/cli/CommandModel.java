package dev.vsm.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UnmatchedArgsBinding;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * picocli's model of vsm's commands, saved at build time and made again at run time without
 * reading an annotation. picocli builds its model by reflection on the {@code @Command},
 * {@code @Option} and {@code @Parameters} annotations, and the JDK reads annotations through
 * proxy classes it generates: 20 ms for the first, 4 ms for each further annotation type, on
 * every command, before vsm does anything. So the build runs {@link #main} on the compiled
 * commands (exec-maven-plugin, process-classes), which writes picocli's own model of each, as
 * picocli derived it from the annotations, to one resource per command ({@link #resource});
 * {@link #commandLine} makes the same model with picocli's programmatic API, binding each option
 * to its field. The annotations stay the one description of the commands; {@code
 * CommandModelTest} checks that both models give every command the same usage help, options,
 * parameters and mixins. A class without a saved model gets picocli's reflective one, as before.
 * Run-time code here avoids lambdas and method references: each links at its first use, a few
 * tenths of a millisecond of every command's start-up.
 *
 * <p>The file is text: one record per line, a kind and then {@code key=value} fields separated
 * by tabs (backslash, tab and newline escaped, list items separated by {@code \u001f}); a
 * command's block ends with {@code end}, a mixin's with {@code endmixin}.
 */
final class CommandModel {
    /** picocli's mixin for {@code mixinStandardHelpOptions}: its options are saved without a field. */
    private static final String AUTO_HELP = "mixinStandardHelpOptions";

    private static final char ITEM = '\u001f';

    private CommandModel() {}

    // ---- run time

    /** {@code command}'s command line, from the saved model when it holds the class, else by reflection. */
    static CommandLine commandLine(Object command) {
        List<String> block = saved(command.getClass());
        if (block == null) {
            return new CommandLine(command);
        }
        Iterator<String> lines = block.iterator();
        lines.next(); // its "command" line
        return new CommandLine(spec(command, lines));
    }

    /** Whether the saved model holds {@code command} (else {@link #commandLine} reads its annotations). */
    static boolean holds(Class<?> command) {
        return saved(command) != null;
    }

    /** The saved block of {@code command} (one resource per command: a command reads only its own), or null. */
    private static List<String> saved(Class<?> command) {
        InputStream in = CommandModel.class.getResourceAsStream(resource(command.getName()));
        if (in == null) {
            return null;
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            List<String> lines = new ArrayList<>();
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line);
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read vsm's command model of " + command.getName(), e);
        }
    }

    /** Where the model of the class {@code className} is saved, relative to this class. */
    static String resource(String className) {
        return "model/" + className + ".model";
    }

    private static CommandSpec spec(Object command, Iterator<String> lines) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
        List<String> aliases = new ArrayList<>();
        List<String> description = new ArrayList<>();
        List<String> footer = new ArrayList<>();
        List<Field> specFields = new ArrayList<>();
        Map<String, CommandLine> subcommands = new LinkedHashMap<>();
        while (lines.hasNext()) {
            String line = lines.next();
            if (line.equals("end")) {
                break;
            }
            String kind = line.substring(0, line.indexOf('\t') < 0 ? line.length() : line.indexOf('\t'));
            Map<String, String> f = fields(line);
            switch (kind) {
                case "name" -> spec.name(f.get("value"));
                case "alias" -> aliases.add(f.get("value"));
                case "description" -> description.add(f.get("value"));
                case "footer" -> footer.add(f.get("value"));
                case "version" -> spec.versionProvider((IVersionProvider) create(f.get("class")));
                case "spec" -> specFields.add(field(f));
                case "option" -> spec.addOption(option(f, command));
                case "positional" -> spec.addPositional(positional(f, command));
                case "unmatched" ->
                    spec.addUnmatchedArgsBinding(
                            UnmatchedArgsBinding.forStringCollectionSupplier(new FieldBinding(command, field(f))));
                case "mixin" -> {
                    boolean autoHelp = f.get("name").equals(AUTO_HELP);
                    Object mixin = autoHelp ? new Object() : create(f.get("type"));
                    if (!autoHelp) {
                        new FieldBinding(command, field(f)).set(mixin);
                    }
                    CommandSpec mixinSpec = CommandSpec.wrapWithoutInspection(mixin);
                    for (String m = lines.next(); !m.equals("endmixin"); m = lines.next()) {
                        mixinSpec.addOption(option(fields(m), autoHelp ? null : mixin));
                    }
                    spec.addMixin(f.get("name"), mixinSpec);
                }
                case "subcommand" -> {
                    String first = lines.next(); // the nested block's "command" line
                    Object sub = create(fields(first).get("class"));
                    subcommands.put(f.get("name"), new CommandLine(spec(sub, lines)));
                }
                default -> throw new IllegalStateException("vsm's command model: unknown record '" + kind + "'");
            }
        }
        spec.aliases(aliases.toArray(new String[0]));
        spec.usageMessage().description(description.toArray(new String[0]));
        spec.usageMessage().footer(footer.toArray(new String[0]));
        for (Map.Entry<String, CommandLine> sub : subcommands.entrySet()) {
            spec.addSubcommand(sub.getKey(), sub.getValue());
        }
        for (Field f : specFields) {
            new FieldBinding(command, f).set(spec);
        }
        return spec;
    }

    private static OptionSpec option(Map<String, String> f, Object target) {
        OptionSpec.Builder b = OptionSpec.builder(items(f.get("names")));
        b.usageHelp(bool(f, "usageHelp")).versionHelp(bool(f, "versionHelp")).negatable(bool(f, "negatable"));
        if (f.containsKey("order")) {
            b.order(Integer.parseInt(f.get("order")));
        }
        if (f.containsKey("fallbackValue")) {
            b.fallbackValue(f.get("fallbackValue"));
        }
        arg(f, target, new ArgBuilder() {
            @Override
            public void set(String attribute, Object value) {
                switch (attribute) {
                    case "type" -> b.type((Class<?>) value);
                    case "auxiliaryTypes" -> b.auxiliaryTypes((Class<?>[]) value);
                    case "arity" -> b.arity((String) value);
                    case "paramLabel" -> b.paramLabel((String) value);
                    case "hideParamSyntax" -> b.hideParamSyntax((Boolean) value);
                    case "description" -> b.description((String[]) value);
                    case "required" -> b.required((Boolean) value);
                    case "hidden" -> b.hidden((Boolean) value);
                    case "splitRegex" -> b.splitRegex((String) value);
                    case "descriptionKey" -> b.descriptionKey((String) value);
                    case "defaultValue" -> b.defaultValue((String) value);
                    case "scope" -> b.scopeType((ScopeType) value);
                    case "converters" -> b.converters((ITypeConverter<?>[]) value);
                    case "initialValue" -> b.initialValue(value);
                    case "binding" -> {
                        FieldBinding binding = (FieldBinding) value;
                        b.getter(binding).setter(binding).initialValue(binding.get());
                    }
                    default -> throw new IllegalArgumentException(attribute);
                }
            }
        });
        b.hasInitialValue(
                (f.containsKey("field") && target != null) || f.get("type").equals("boolean"));
        return b.build();
    }

    private static PositionalParamSpec positional(Map<String, String> f, Object target) {
        PositionalParamSpec.Builder b = PositionalParamSpec.builder().index(f.get("index"));
        arg(f, target, new ArgBuilder() {
            @Override
            public void set(String attribute, Object value) {
                switch (attribute) {
                    case "type" -> b.type((Class<?>) value);
                    case "auxiliaryTypes" -> b.auxiliaryTypes((Class<?>[]) value);
                    case "arity" -> b.arity((String) value);
                    case "paramLabel" -> b.paramLabel((String) value);
                    case "hideParamSyntax" -> b.hideParamSyntax((Boolean) value);
                    case "description" -> b.description((String[]) value);
                    case "required" -> b.required((Boolean) value);
                    case "hidden" -> b.hidden((Boolean) value);
                    case "splitRegex" -> b.splitRegex((String) value);
                    case "descriptionKey" -> b.descriptionKey((String) value);
                    case "defaultValue" -> b.defaultValue((String) value);
                    case "scope" -> b.scopeType((ScopeType) value);
                    case "converters" -> b.converters((ITypeConverter<?>[]) value);
                    case "initialValue" -> b.initialValue(value);
                    case "binding" -> {
                        FieldBinding binding = (FieldBinding) value;
                        b.getter(binding).setter(binding).initialValue(binding.get());
                    }
                    default -> throw new IllegalArgumentException(attribute);
                }
            }
        });
        b.hasInitialValue(
                (f.containsKey("field") && target != null) || f.get("type").equals("boolean"));
        return b.build();
    }

    /**
     * What options and positional parameters share, set on either builder: picocli's common
     * builder type is not public, so each builder is reached through one of these. (A switch,
     * not method references: linking each reference costs a command's start-up a few tenths of
     * a millisecond.)
     */
    private interface ArgBuilder {
        void set(String attribute, Object value);
    }

    private static void arg(Map<String, String> f, Object target, ArgBuilder b) {
        b.set("type", type(f.get("type")));
        if (f.containsKey("auxiliaryTypes")) {
            String[] names = items(f.get("auxiliaryTypes"));
            Class<?>[] types = new Class<?>[names.length];
            for (int i = 0; i < names.length; i++) {
                types[i] = type(names[i]);
            }
            b.set("auxiliaryTypes", types);
        }
        if (f.containsKey("arity")) {
            b.set("arity", f.get("arity"));
        }
        b.set("paramLabel", f.get("paramLabel"));
        b.set("hideParamSyntax", bool(f, "hideParamSyntax"));
        b.set("description", f.containsKey("description") ? items(f.get("description")) : new String[0]);
        b.set("required", bool(f, "required"));
        b.set("hidden", bool(f, "hidden"));
        if (f.containsKey("descriptionKey")) {
            b.set("descriptionKey", f.get("descriptionKey"));
        }
        if (f.containsKey("splitRegex")) {
            b.set("splitRegex", f.get("splitRegex"));
        }
        if (f.containsKey("defaultValue")) {
            b.set("defaultValue", f.get("defaultValue"));
        }
        if (f.containsKey("scope")) {
            b.set("scope", ScopeType.valueOf(f.get("scope")));
        }
        if (f.containsKey("converters")) {
            String[] names = items(f.get("converters"));
            ITypeConverter<?>[] converters = new ITypeConverter<?>[names.length];
            for (int i = 0; i < names.length; i++) {
                converters[i] = (ITypeConverter<?>) create(names[i]);
            }
            b.set("converters", converters);
        }
        if (target != null && f.containsKey("field")) {
            b.set("binding", new FieldBinding(target, field(f)));
        } else if (f.get("type").equals("boolean")) {
            b.set("initialValue", false); // picocli's help options: a boolean field of its own mixin
        }
    }

    /** An option's or a mixin's field on the object that holds it. */
    private record FieldBinding(Object target, Field field) implements IGetter, ISetter {
        @Override
        @SuppressWarnings("unchecked")
        public <T> T get() {
            try {
                return (T) field.get(target);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public <T> T set(T value) {
            T old = get();
            try {
                field.set(target, value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
            return old;
        }
    }

    private static Field field(Map<String, String> f) {
        try {
            Field field = Class.forName(f.get("declaredIn")).getDeclaredField(f.get("field"));
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("vsm's command model names a field it does not find (rebuild vsm)", e);
        }
    }

    private static Object create(String className) {
        try {
            var constructor = Class.forName(className).getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("vsm's command model names a class it cannot make (rebuild vsm)", e);
        }
    }

    private static Class<?> type(String name) {
        return switch (name) {
            case "boolean" -> boolean.class;
            case "int" -> int.class;
            case "long" -> long.class;
            default -> {
                try {
                    yield Class.forName(name);
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("vsm's command model names a type it does not find", e);
                }
            }
        };
    }

    private static boolean bool(Map<String, String> f, String key) {
        return "true".equals(f.get(key));
    }

    private static String[] items(String value) {
        List<String> items = new ArrayList<>();
        int from = 0;
        for (int i = value.indexOf(ITEM); i >= 0; i = value.indexOf(ITEM, from)) {
            items.add(value.substring(from, i));
            from = i + 1;
        }
        items.add(value.substring(from));
        return items.toArray(new String[0]);
    }

    /** A record's {@code key=value} fields (after its kind); a record of one value has the key {@code value}. */
    private static Map<String, String> fields(String line) {
        Map<String, String> fields = new HashMap<>();
        int start = line.indexOf('\t');
        while (start >= 0) {
            int end = line.indexOf('\t', start + 1);
            String field = line.substring(start + 1, end < 0 ? line.length() : end);
            int eq = field.indexOf('=');
            fields.put(field.substring(0, eq), unescape(field.substring(eq + 1)));
            start = end;
        }
        return fields;
    }

    private static String unescape(String text) {
        if (text.indexOf('\\') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char n = text.charAt(++i);
                out.append(n == 't' ? '\t' : n == 'n' ? '\n' : n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    // ---- build time

    /** Writes the model of the root command and of every subcommand under the class directory {@code args[0]}. */
    public static void main(String[] args) throws IOException {
        List<Object> commands = new ArrayList<>();
        commands.add(new dev.vsm.cli.support.Vsm(System.out, System.err));
        for (Class<?> command : Subcommands.ALL.values()) {
            commands.add(Subcommands.create(command));
        }
        Path dir = Path.of(args[0], CommandModel.class.getPackageName().replace('.', '/'));
        for (Object command : commands) {
            StringBuilder out = new StringBuilder();
            write(new CommandLine(command).getCommandSpec(), out);
            Path file = dir.resolve(resource(command.getClass().getName()));
            Files.createDirectories(file.getParent());
            Files.writeString(file, out, StandardCharsets.UTF_8);
        }
    }

    /** {@code spec}'s block: what picocli made of the annotations, and the fields it binds. */
    static void write(CommandSpec spec, StringBuilder out) {
        Object command = spec.userObject();
        record(out, "command", "class", command.getClass().getName());
        record(out, "name", "value", spec.name());
        for (String alias : spec.aliases()) {
            record(out, "alias", "value", alias);
        }
        for (String line : spec.usageMessage().description()) {
            record(out, "description", "value", line);
        }
        for (String line : spec.usageMessage().footer()) {
            record(out, "footer", "value", line);
        }
        check(spec.usageMessage().header().length == 0, spec, "a header");
        if (spec.versionProvider() != null) {
            record(out, "version", "class", spec.versionProvider().getClass().getName());
        }
        List<Object> inMixins = new ArrayList<>();
        spec.mixins().values().forEach(m -> m.args().forEach(a -> inMixins.add(a.userObject())));
        Map<String, Field> mixinFields = new LinkedHashMap<>();
        for (Class<?> c = command.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (field.isAnnotationPresent(Spec.class)) {
                    record(out, "spec", "declaredIn", c.getName(), "field", field.getName());
                } else if (field.isAnnotationPresent(Unmatched.class)) {
                    check(List.class.isAssignableFrom(field.getType()), spec, "@Unmatched on a field not a List");
                    record(out, "unmatched", "declaredIn", c.getName(), "field", field.getName());
                } else if (field.isAnnotationPresent(Mixin.class)) {
                    String name = field.getAnnotation(Mixin.class).name();
                    mixinFields.put(name.isEmpty() ? field.getName() : name, field);
                }
            }
        }
        // options in picocli's order, each mixin's where its first option was added
        List<String> mixinsWritten = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (o.inherited()) {
                continue;
            }
            String mixin = null;
            for (Map.Entry<String, CommandSpec> m : spec.mixins().entrySet()) {
                if (m.getValue().options().stream().anyMatch(mo -> mo.userObject() == o.userObject())) {
                    mixin = m.getKey();
                }
            }
            if (mixin == null) {
                out.append(option(spec, o)).append('\n');
            } else if (!mixinsWritten.contains(mixin)) {
                mixinsWritten.add(mixin);
                writeMixin(spec, mixin, mixinFields.get(mixin), out);
            }
        }
        for (String mixin : spec.mixins().keySet()) {
            if (!mixinsWritten.contains(mixin)) {
                writeMixin(spec, mixin, mixinFields.get(mixin), out);
            }
        }
        for (PositionalParamSpec p : spec.positionalParameters()) {
            if (!p.inherited() && !inMixins.contains(p.userObject())) {
                out.append(arg(spec, "positional", p, List.of("index", p.index().originalValue())))
                        .append('\n');
            }
        }
        spec.subcommands().forEach((name, sub) -> {
            if (sub.getCommandSpec().parent() == spec && sub.getCommandName().equals(name)) {
                record(out, "subcommand", "name", name);
                write(sub.getCommandSpec(), out);
            }
        });
        out.append("end\n");
    }

    /** A mixin's record, its options, and {@code endmixin}; picocli's help mixin has no field. */
    private static void writeMixin(CommandSpec spec, String name, Field field, StringBuilder out) {
        CommandSpec mixin = spec.mixins().get(name);
        check(mixin.positionalParameters().isEmpty(), spec, "a mixin with parameters");
        if (name.equals(AUTO_HELP)) {
            record(out, "mixin", "name", name);
        } else {
            check(field != null, spec, "a mixin that is not a field");
            record(
                    out,
                    "mixin",
                    "name",
                    name,
                    "declaredIn",
                    field.getDeclaringClass().getName(),
                    "field",
                    field.getName(),
                    "type",
                    field.getType().getName());
        }
        mixin.options().forEach(o -> out.append(option(spec, o)).append('\n'));
        out.append("endmixin\n");
    }

    private static String option(CommandSpec spec, OptionSpec o) {
        List<String> extra = new ArrayList<>(List.of("names", String.join(String.valueOf(ITEM), o.names())));
        for (String flag : new String[] {"usageHelp", "versionHelp", "negatable"}) {
            boolean set = switch (flag) {
                case "usageHelp" -> o.usageHelp();
                case "versionHelp" -> o.versionHelp();
                default -> o.negatable();
            };
            if (set) {
                extra.add(flag);
                extra.add("true");
            }
        }
        if (o.order() != -1) { // picocli's default order
            extra.add("order");
            extra.add(Integer.toString(o.order()));
        }
        if (o.fallbackValue() != null && !o.fallbackValue().isEmpty()) {
            extra.add("fallbackValue");
            extra.add(o.fallbackValue());
        }
        return arg(spec, "option", o, extra);
    }

    private static String arg(CommandSpec spec, String kind, ArgSpec a, List<String> extra) {
        check(!a.interactive(), spec, "an interactive option");
        check(a.parameterConsumer() == null, spec, "a parameter consumer");
        check(a.preprocessor().getClass().getSimpleName().equals("NoOpParameterPreprocessor"), spec, "a preprocessor");
        List<String> kv = new ArrayList<>(extra);
        if (a.userObject() instanceof Field field) {
            kv.addAll(List.of("declaredIn", field.getDeclaringClass().getName(), "field", field.getName()));
        }
        kv.addAll(List.of("type", a.type().getName()));
        if (a.auxiliaryTypes().length > 0 && !(a.auxiliaryTypes().length == 1 && a.auxiliaryTypes()[0] == a.type())) {
            List<String> aux = new ArrayList<>();
            for (Class<?> t : a.auxiliaryTypes()) {
                aux.add(t.getName());
            }
            kv.addAll(List.of("auxiliaryTypes", String.join(String.valueOf(ITEM), aux)));
        }
        if (!a.arity().isUnspecified()) {
            kv.addAll(List.of("arity", a.arity().originalValue()));
        }
        kv.addAll(List.of("paramLabel", a.paramLabel()));
        if (a.description().length > 0) {
            kv.addAll(List.of("description", String.join(String.valueOf(ITEM), a.description())));
        }
        for (String flag : new String[] {"hideParamSyntax", "required", "hidden"}) {
            boolean set = switch (flag) {
                case "hideParamSyntax" -> a.hideParamSyntax();
                case "required" -> a.required();
                default -> a.hidden();
            };
            if (set) {
                kv.addAll(List.of(flag, "true"));
            }
        }
        if (a.descriptionKey() != null && !a.descriptionKey().isEmpty()) {
            kv.addAll(List.of("descriptionKey", a.descriptionKey())); // picocli's help options have one
        }
        if (!a.splitRegex().isEmpty()) {
            kv.addAll(List.of("splitRegex", a.splitRegex()));
        }
        if (a.defaultValue() != null) {
            kv.addAll(List.of("defaultValue", a.defaultValue()));
        }
        if (a.scopeType() != ScopeType.LOCAL) {
            kv.addAll(List.of("scope", a.scopeType().name()));
        }
        if (a.converters().length > 0) {
            List<String> names = new ArrayList<>();
            for (ITypeConverter<?> c : a.converters()) {
                names.add(c.getClass().getName());
            }
            kv.addAll(List.of("converters", String.join(String.valueOf(ITEM), names)));
        }
        StringBuilder line = new StringBuilder();
        record(line, kind, kv.toArray(String[]::new));
        return line.substring(0, line.length() - 1);
    }

    private static void record(StringBuilder out, String kind, String... keyValues) {
        out.append(kind);
        for (int i = 0; i < keyValues.length; i += 2) {
            out.append('\t').append(keyValues[i]).append('=').append(escape(keyValues[i + 1]));
        }
        out.append('\n');
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n");
    }

    private static void check(boolean supported, CommandSpec spec, String what) {
        if (!supported) {
            throw new IllegalStateException("command '" + spec.qualifiedName() + "' has " + what
                    + ", which vsm's saved command model (dev.vsm.cli.CommandModel) does not carry: extend it");
        }
    }
}
