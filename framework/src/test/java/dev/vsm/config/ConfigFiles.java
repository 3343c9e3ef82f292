package dev.vsm.config;

import dev.vsm.lock.FileLocks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A configuration file and lock directory under a test's temporary directory. */
final class ConfigFiles {
    final Path dir;
    final Path file;
    final Path localDir;
    final Path lockDir;
    final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    ConfigFiles(Path dir) {
        this.dir = dir;
        this.file = dir.resolve("etc/vsm/storage.yaml");
        this.localDir = dir.resolve("data/vsm/local");
        this.lockDir = dir.resolve("locks");
        try {
            Files.createDirectories(lockDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ConfigLocation location() {
        return new ConfigLocation(file, false, localDir);
    }

    ConfigStore store() {
        return store(location());
    }

    ConfigStore store(ConfigLocation location) {
        return new ConfigStore(location, TestSchemas.LOOKUP, locks());
    }

    FileLocks locks() {
        return new FileLocks(lockDir, new PrintStream(progress, true, StandardCharsets.UTF_8));
    }

    /** Writes the configuration file. */
    ConfigFiles write(String yaml) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    String text() {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    byte[] bytes() {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    StorageConfigs load() {
        return store().load();
    }
}
