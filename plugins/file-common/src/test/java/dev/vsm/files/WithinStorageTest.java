package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.StorageContext;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class WithinStorageTest {
    /**
     * WithinStorage hands every service but files() to the context it wraps: a method the SPI adds
     * to StorageContext (a default one too) must be passed on, or a plugin under the file-storage
     * library would get the SPI's default instead of the framework's service.
     */
    @Test
    void passesOnEveryMethodOfTheContext() {
        List<String> context = Arrays.stream(StorageContext.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .map(WithinStorageTest::signature)
                .toList();
        List<String> declared = Arrays.stream(WithinStorage.class.getDeclaredMethods())
                .map(WithinStorageTest::signature)
                .toList();
        assertThat(context).isNotEmpty();
        assertThat(declared).containsAll(context);
    }

    private static String signature(Method m) {
        return m.getName() + Arrays.toString(m.getParameterTypes());
    }
}
