package dev.vsm.spi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
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

    /**
     * A record's public canonical constructor changes with every new component, which breaks each
     * plugin jar that calls it: values plugins construct are final classes with builders or
     * factories. Records stay where the engine makes the value and plugins only read it, or
     * where the value is an identity that will not grow (a volume id, a parsed file name).
     */
    @Test
    void valuesPluginsConstructAreNoRecords() {
        Set<String> allowed = Set.of(
                "StorageConfig",
                "VolumeId",
                "ImageImport",
                "SourceImage",
                "CommandRunner$Result",
                "QemuImg$ImageFile",
                "QemuImg$Inspection",
                "BackupArchiveName",
                "PathVolume",
                "ImageFileName");
        List<String> records = SPI.stream()
                .filter(c -> c.reflect().isRecord())
                .map(c -> c.getName().substring(c.getPackageName().length() + 1))
                .filter(n -> !allowed.contains(n))
                .sorted()
                .toList();
        assertThat(records).as("records in the SPI that plugins may construct").isEmpty();
    }
}
