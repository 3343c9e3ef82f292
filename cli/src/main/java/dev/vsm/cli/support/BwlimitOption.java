package dev.vsm.cli.support;

import picocli.CommandLine.Option;

/**
 * {@code --bwlimit KiB/s}: the limit a transfer asks for. The storages' {@code bwlimit} applies
 * too (dev.vsm.config.BandwidthLimits): the smaller wins, unless the caller may change the
 * storages (may write the configuration file, as {@code vsm set} needs), whose own value stands
 * alone, {@code 0} for none.
 */
public final class BwlimitOption {
    public static final String DESCRIPTION = "at most this many KiB per second (0: no limit); the storages' bwlimit "
            + "applies too, the smaller winning, unless you may write the configuration";

    @Option(names = "--bwlimit", paramLabel = "KiB/s", description = DESCRIPTION)
    Long bwlimit;

    /** The limit asked for, or null. */
    public Long value() {
        return bwlimit;
    }
}
