package dev.vsm.example.embedding;

import dev.vsm.engine.StorageManager;
import dev.vsm.runtime.VsmRuntime;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * vsm embedded in a program: a runtime on a dir storage in {@code workDir}, a qcow2 volume
 * allocated, listed, made a base image and cloned (a linked clone), then both freed. Run it with
 * {@code java dev.vsm.example.embedding.EmbeddingExample DIR}; docs/embedding.md walks through it.
 */
public final class EmbeddingExample {
    /** What {@link #run} made, before it freed it. */
    public record Result(
            VolumeId base,
            Path basePath,
            VolumeId linkedClone,
            Path clonePath,
            List<VolumeInfo> listed,
            List<VolumeInfo> listedAfterFree) {}

    private EmbeddingExample() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println(
                    "usage: EmbeddingExample DIR (a directory for the storage, its configuration and locks)");
            System.exit(2);
        }
        run(Path.of(args[0]), System.out, path -> {});
    }

    /**
     * @param inspect sees the clone's file before the volumes are freed (the test runs qemu-img info on it)
     */
    public static Result run(Path workDir, PrintStream out, Consumer<Path> inspect) throws IOException {
        // the configuration: one dir storage (a file, as vsm's own /etc/vsm/storage.yaml)
        Path config = workDir.resolve("storage.yaml");
        Files.writeString(
                config, """
                storages:
                  images:
                    type: dir
                    path: IMAGES
                    content: [images]
                """.replace("IMAGES", workDir.resolve("images").toString()));

        // [runtime]
        try (VsmRuntime vsm = VsmRuntime.builder()
                .configFile(config)
                .lockDirectory(workDir.resolve("locks"))
                .output(out, System.err)
                .build()) {
            StorageManager storage = vsm.manager();

            long sizeKib = 1024 * 1024; // 1 GiB
            VolumeId disk = storage.alloc("images", 100, null, "qcow2", sizeKib, null);
            List<VolumeInfo> listed = storage.list("images", ContentType.IMAGES, 100);

            VolumeId base = storage.createBase(disk); // images:100/base-100-disk-0.qcow2
            VolumeId clone = storage.cloneVolume(base, 101); // a qcow2 backed by the base
            Path basePath = storage.path(base);
            Path clonePath = storage.path(clone);
            inspect.accept(clonePath);

            storage.free(clone); // the clone first: a base in use is not freed
            storage.free(base);
            return new Result(
                    base, basePath, clone, clonePath, listed, storage.list("images", ContentType.IMAGES, null));
        }
        // [runtime]
    }
}
