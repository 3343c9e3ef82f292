package dev.vsm.cli.command;

import dev.vsm.config.ConfigLocation;
import dev.vsm.server.access.AccessException;
import dev.vsm.server.access.AccessFile;
import dev.vsm.spi.StorageException;
import java.util.function.Supplier;

/** What {@code vsm token}, {@code vsm acl} and {@code vsm serve} share: the access file beside the configuration. */
abstract class AccessCommand extends VsmCommand {
    /** {@code access.json} in the configuration file's directory. */
    AccessFile accessFile() {
        return AccessFile.besideConfig(configFile());
    }

    java.nio.file.Path configFile() {
        return ConfigLocation.resolve(vsm().configOption(), vsm().environment()).file();
    }

    /** Runs a change of the access file, its refusals as bad input (exit status 2). */
    static <T> T access(Supplier<T> change) {
        try {
            return change.get();
        } catch (AccessException e) {
            throw StorageException.badInput("%s", e.getMessage());
        }
    }
}
