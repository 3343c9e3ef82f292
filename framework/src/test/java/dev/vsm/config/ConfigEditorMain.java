package dev.vsm.config;

import dev.vsm.lock.FileLocks;
import java.nio.file.Path;
import java.util.Map;

/**
 * Test helper run in a second JVM: {@code <config file> <lock dir> <local dir> <prefix> <count>}
 * prints {@code ready}, waits for a line on stdin (so that the parent can start everybody at
 * once), adds {@code count} lvm storages {@code <prefix>-<i>}, one edit each, then prints {@code done}.
 */
public final class ConfigEditorMain {
    private ConfigEditorMain() {}

    public static void main(String[] args) throws java.io.IOException {
        ConfigLocation location = new ConfigLocation(Path.of(args[0]), false, Path.of(args[2]));
        ConfigStore store = new ConfigStore(location, TestSchemas.LOOKUP, new FileLocks(Path.of(args[1]), System.err));
        int count = Integer.parseInt(args[4]);
        System.out.println("ready");
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))
                .readLine();
        for (int i = 0; i < count; i++) {
            store.add("lvm", args[3] + "-" + i, Map.of("vgname", "vg" + i));
        }
        System.out.println("done");
    }
}
