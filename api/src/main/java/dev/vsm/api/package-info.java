/**
 * vsm for a program that embeds it: the facade {@link dev.vsm.api.VsmStorage} and the values it
 * takes and gives. A request is a final class made by a static factory and refined with withers
 * (each returns a new value), a result a final class with accessors: never records, so that each
 * can gain fields without breaking a caller (the SPI's rule, {@code dev.vsm.spi.StorageApi}).
 * Volume ids, formats, content types, listed volumes and the exception are the SPI's values
 * ({@code dev.vsm.spi}); nothing here names a type of the engine, which may change at any time.
 *
 * <p>Every check and refusal is the command line's: {@code vsm} calls the same engine, so a
 * request the command line refuses is refused here with the same message, as a
 * {@link dev.vsm.spi.StorageException} whose {@code kind()} is {@code BAD_INPUT} (the command
 * line's exit status 2) or {@code FAILED} (exit status 1).
 */
package dev.vsm.api;
