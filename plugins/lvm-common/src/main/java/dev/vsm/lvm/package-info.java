/**
 * lvm2 as vsm's LVM and LVM-thin plugins use it: every lvm2 command line in one place
 * ({@link dev.vsm.lvm.LvmCommands}), robust parsers of the {@code vgs}/{@code lvs} reports
 * ({@link dev.vsm.lvm.VgsReport}, {@link dev.vsm.lvm.LvsReport}) and a small facade that runs them
 * through a plugin's {@link dev.vsm.spi.CommandRunner} ({@link dev.vsm.lvm.Lvm}); and what the
 * two storage types share above lvm2, so that each plugin keeps only its own rules: the schema's
 * common properties ({@link dev.vsm.lvm.LvmProperties}), volume and LV names
 * ({@link dev.vsm.lvm.LvVolumeNames}, {@link dev.vsm.lvm.LvmNames}), {@code vsm scan}
 * ({@link dev.vsm.lvm.LvmScans}), stream formats ({@link dev.vsm.lvm.LvStreamFormats}) and imports
 * ({@link dev.vsm.lvm.LvImports}).
 *
 * <p>This package depends on {@code java.*} and the SPI only (an ArchUnit test keeps it so), so
 * that it can be exposed to drop-in plugin jars beside the SPI.
 */
package dev.vsm.lvm;
