package dev.vsm.spi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The SPI is what plugin jars compile against: it may depend on java.* and on itself, nothing else. */
class SpiDependenciesTest {
    private static final JavaClasses SPI = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.vsm.spi");

    @Test
    void spiDependsOnJavaOnly() {
        classes().that().resideInAPackage("dev.vsm.spi..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.vsm.spi..")
                .because("plugins are loaded in class loaders that expose only the SPI and java.*")
                .check(SPI);
    }
}
