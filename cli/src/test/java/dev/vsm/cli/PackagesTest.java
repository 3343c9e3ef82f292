package dev.vsm.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import dev.vsm.env.Environment;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The main code of every module on the CLI's class path (SPI, framework, LVM library, built-in
 * plugins, cluster mode, CLI): no package cycles, each package in one module, and the process
 * environment read in one place.
 */
class PackagesTest {
    /** Main code only: Maven's test-classes directories and test jars are left out. */
    private static final ImportOption MAIN_ONLY =
            (Location location) -> !location.contains("/test-classes/") && !location.contains("-tests.jar");

    private static final JavaClasses VSM =
            new ClassFileImporter().withImportOption(MAIN_ONLY).importPackages("dev.vsm");

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("dev.vsm.(**)").should().beFreeOfCycles().check(VSM);
    }

    /** The command line reaches a plugin's code, and the libraries it bundles, only through the SPI. */
    @Test
    void theCommandLineDependsOnNoPlugin() {
        noClasses()
                .that()
                .resideInAPackage("dev.vsm.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.vsm.files..", "dev.vsm.lvm..", "dev.vsm.plugin..", "dev.vsm.example..")
                .check(VSM);
    }

    @Test
    void eachPackageIsInOneModule() {
        Map<String, Set<String>> modules = new TreeMap<>();
        for (JavaClass c : VSM) {
            String where = c.getSource().map(s -> module(s.getUri().toString())).orElse("?");
            modules.computeIfAbsent(c.getPackageName(), p -> new TreeSet<>()).add(where);
        }
        assertThat(modules)
                .isNotEmpty()
                .allSatisfy((pkg, where) -> assertThat(where).as(pkg).hasSize(1));
    }

    /** Settings come from an {@link Environment}, which tests and embedders can give: only it reads the process's. */
    @Test
    void onlyEnvironmentReadsTheProcessEnvironment() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName(Environment.class.getName())
                .should()
                .callMethod(System.class, "getenv")
                .orShould()
                .callMethod(System.class, "getenv", String.class)
                .check(VSM);
    }

    /** A class's module: its jar, or the build directory its class file is under. */
    private static String module(String uri) {
        int classes = uri.indexOf("/target/classes/");
        if (classes >= 0) {
            return uri.substring(0, classes);
        }
        int jar = uri.indexOf(".jar!");
        return jar >= 0 ? uri.substring(0, jar) : uri;
    }
}
