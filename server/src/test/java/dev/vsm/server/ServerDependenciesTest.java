package dev.vsm.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The server reaches vsm through the embedding API and the SPI's values only, never the engine behind them. */
class ServerDependenciesTest {
    @Test
    void theServerUsesTheApiNotTheEngine() {
        classes()
                .that()
                .resideInAPackage("dev.vsm.server..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "javax..",
                        "dev.vsm.server..",
                        "dev.vsm.api",
                        "dev.vsm.spi",
                        "org.eclipse.jetty..",
                        "com.fasterxml.jackson..",
                        "org.slf4j..")
                .check(new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.vsm.server"));
    }
}
