package dev.vsm.example.embedding;

import dev.vsm.api.Clone;
import dev.vsm.api.CreateBase;
import dev.vsm.api.ListQuery;
import dev.vsm.api.NewVolume;
import dev.vsm.api.VsmStorage;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * vsm embedded in a program through its API ({@code dev.vsm.api}): a dir storage in
 * {@code workDir}, a qcow2 volume allocated, listed, made a base image and cloned (a linked
 * clone), then both freed. Run it with {@code java dev.vsm.example.embedding.EmbeddingExample DIR};
 * docs/embedding.md walks through it.
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

        // [api]
        try (VsmStorage vsm = VsmStorage.builder()
                .configFile(config)
                .lockDirectory(workDir.resolve("locks"))
                .output(out, System.err)
                .build()) {
            long sizeKib = 1024 * 1024; // 1 GiB
            VolumeId disk = vsm.alloc(NewVolume.of("images", 100, sizeKib).format(VolumeFormat.QCOW2));
            List<VolumeInfo> listed =
                    vsm.list(ListQuery.of("images").content(ContentType.IMAGES).vmid(100));

            VolumeId base = vsm.createBase(CreateBase.of(disk)); // images:100/base-100-disk-0.qcow2
            VolumeId clone = vsm.clone(Clone.of(base, 101)); // a qcow2 backed by the base
            Path basePath = vsm.path(base);
            Path clonePath = vsm.path(clone);
            inspect.accept(clonePath);

            vsm.free(clone); // the clone first: a base in use is not freed
            vsm.free(base);
            return new Result(base, basePath, clone, clonePath, listed, vsm.list(ListQuery.of("images")));
        }
        // [api]
    }
}
