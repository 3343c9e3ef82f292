package dev.vsm.spi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SPI is what plugin jars compile against: it may depend on java.* and on itself, nothing else. */
class SpiDependenciesTest {
    private static final JavaClasses SPI = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.vsm.spi");

    @Test
    void spiDependsOnJavaOnly() {
        classes()
                .that()
                .resideInAPackage("dev.vsm.spi..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "dev.vsm.spi..")
                .because("plugins are loaded in class loaders that expose only the SPI and java.*")
                .check(SPI);
    }

    /** {@link StorageApi}'s rule: values are final classes, so that each can gain a field. */
    @Test
    void theSpiHasNoRecords() {
        List<String> records = SPI.stream()
                .filter(c -> c.reflect().isRecord())
                .map(c -> c.getName())
                .sorted()
                .toList();
        assertThat(records).as("records in the SPI").isEmpty();
    }

    /** The SPI is the contract; the toolkit file plugins share is a library of its own (vsm-files). */
    @Test
    void theSpiIsOnePackage() {
        assertThat(SPI.stream().map(c -> c.getPackageName()).distinct().toList())
                .containsExactly("dev.vsm.spi");
    }
}
