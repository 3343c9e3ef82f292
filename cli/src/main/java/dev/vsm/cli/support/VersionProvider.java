package dev.vsm.cli.support;

import dev.vsm.spi.StorageApi;
import picocli.CommandLine.IVersionProvider;

/** {@code vsm --version}: the build and the storage API it implements. */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Vsm.class.getPackage().getImplementationVersion();
        return new String[] {
            "vsm " + (v == null ? "(development build)" : v),
            "storage API " + StorageApi.VERSION + " (accepts plugins for " + StorageApi.acceptedRange() + ")"
        };
    }
}
