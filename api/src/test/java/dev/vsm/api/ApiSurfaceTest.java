package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What {@code dev.vsm.api} promises: exactly these public types, each a final class (never a
 * record, so a value can gain fields), and no public signature naming a type outside
 * {@code java.*}, {@code dev.vsm.api} and {@code dev.vsm.spi} (an engine type in a signature
 * would make the engine part of the promise). A new public type is added here on purpose, and
 * japicmp (api/pom.xml) keeps the existing ones compatible.
 */
class ApiSurfaceTest {
    private static final Set<String> EXPECTED = Set.of(
            "Clone",
            "ConfigChange",
            "CopyVolume",
            "CreateBase",
            "Export",
            "ImportImage",
            "ListQuery",
            "NewStorage",
            "NewVolume",
            "PruneBackups",
            "PruneMark",
            "Resize",
            "Snapshot",
            "SnapshotRename",
            "StatusQuery",
            "StorageState",
            "StorageUpdate",
            "Upload",
            "VolumeDetails",
            "VsmStorage",
            "VsmStorage$Builder",
            "Wipe");

    @Test
    void thePublicTypesAreTheExpectedOnes() throws Exception {
        assertThat(publicTypes())
                .extracting(c -> c.getName().substring("dev.vsm.api.".length()))
                .containsExactlyInAnyOrderElementsOf(EXPECTED);
    }

    @Test
    void everyPublicTypeIsAFinalClassNotARecord() throws Exception {
        for (Class<?> type : publicTypes()) {
            assertThat(type.isRecord()).as("%s is a record", type).isFalse();
            assertThat(type.isInterface() || type.isEnum()).as("%s", type).isFalse();
            assertThat(Modifier.isFinal(type.getModifiers()))
                    .as("%s is final", type)
                    .isTrue();
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                assertThat(Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers()))
                        .as("%s: a public constructor fixes the fields; use a factory", c)
                        .isFalse();
            }
        }
    }

    @Test
    void noPublicSignatureNamesAnEngineType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            for (Method m : type.getDeclaredMethods()) {
                if (visible(m.getModifiers()) && !m.isSynthetic()) {
                    check(m.getGenericReturnType(), m.toGenericString(), leaks);
                    checkParameters(m, leaks);
                }
            }
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (visible(c.getModifiers())) {
                    checkParameters(c, leaks);
                }
            }
            for (Field f : type.getDeclaredFields()) {
                if (visible(f.getModifiers())) {
                    check(f.getGenericType(), f.toGenericString(), leaks);
                }
            }
            for (Type t : type.getGenericInterfaces()) {
                check(t, type + " implements", leaks);
            }
            check(type.getGenericSuperclass(), type + " extends", leaks);
        }
        assertThat(leaks).isEmpty();
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void checkParameters(Executable e, List<String> leaks) {
        for (Type t : e.getGenericParameterTypes()) {
            check(t, e.toGenericString(), leaks);
        }
        for (Type t : e.getGenericExceptionTypes()) {
            check(t, e.toGenericString(), leaks);
        }
    }

    private static void check(Type type, String where, List<String> leaks) {
        if (type == null) {
            return;
        }
        if (type instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            String name = c.getName();
            if (!c.isPrimitive()
                    && !name.startsWith("java.")
                    && !name.startsWith("dev.vsm.api.")
                    && !name.startsWith("dev.vsm.spi.")) {
                leaks.add(where + ": " + name);
            }
        } else if (type instanceof ParameterizedType p) {
            check(p.getRawType(), where, leaks);
            for (Type a : p.getActualTypeArguments()) {
                check(a, where, leaks);
            }
        } else if (type instanceof GenericArrayType g) {
            check(g.getGenericComponentType(), where, leaks);
        } else if (type instanceof WildcardType w) {
            Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
                    .forEach(b -> check(b, where, leaks));
        } else if (type instanceof TypeVariable<?> v) {
            for (Type b : v.getBounds()) {
                check(b, where, leaks);
            }
        }
    }

    /** The public types of dev.vsm.api, nested ones included, from the compiled classes. */
    private static List<Class<?>> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path dir = Path.of(VsmStorage.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .resolve("dev/vsm/api");
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".class") && !n.equals("package-info.class"))
                    .forEach(n -> names.add("dev.vsm.api." + n.substring(0, n.length() - ".class".length())));
        }
        List<Class<?>> types = new ArrayList<>();
        for (String name : names) {
            Class<?> c = Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
            if (Modifier.isPublic(c.getModifiers()) && !c.isAnonymousClass() && !c.isSynthetic()) {
                Class<?> outer = c.getEnclosingClass();
                if (outer == null || Modifier.isPublic(outer.getModifiers())) {
                    types.add(c);
                }
            }
        }
        return types;
    }
}
