package dev.vsm.files;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The file-storage library is bundled by plugins, drop-ins among them, so it may use only what a
 * plugin's class loader sees: the SPI of vsm's, and the JDK (java.*, and the java.xml module's
 * {@code javax.xml} and {@code org.xml.sax} that the OVF reader parses with), which a plugin's
 * loader takes from the platform class loader.
 */
class FilesDependenciesTest {
    @Test
    void filesDependOnTheSpiOnly() {
        classes()
                .that()
                .resideInAPackage("dev.vsm.files..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "javax.xml..", "org.xml.sax..", "dev.vsm.spi..", "dev.vsm.files..")
                .because("the file-storage library compiles against the SPI and the JDK only")
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.vsm.files"));
    }
}
