package dev.vsm.lvm;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The lvm2 layer is shared by plugins, so it may use only what a plugin's class loader sees
 * (java.*, the SPI, slf4j), and it needs no more than java.* and the SPI: it runs its commands
 * through the SPI's runner, which logs what they print.
 */
class LvmDependenciesTest {
    @Test
    void lvmDependsOnTheSpiOnly() {
        classes()
                .that()
                .resideInAPackage("dev.vsm.lvm..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "dev.vsm.spi..", "dev.vsm.lvm..")
                .because("the LVM library compiles against the SPI only")
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.vsm.lvm"));
    }
}
