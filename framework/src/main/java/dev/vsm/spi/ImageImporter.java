package dev.vsm.spi;

/**
 * How a storage makes a new volume from an image with {@code qemu-img convert}
 * ({@link Storage#imageImporter()}).
 *
 * <p>Called without the storage lock, since a convert may take long: the importer takes it
 * itself ({@link StorageContext#locks()}) around what must not race with other changes (choosing
 * a name, allocating). When the import fails or is stopped it leaves no volume behind.
 */
@FunctionalInterface
public interface ImageImporter {
    /** Makes the volume and returns its volume name. */
    String importImage(ImageImport request);
}
