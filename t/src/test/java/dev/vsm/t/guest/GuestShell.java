package dev.vsm.t.guest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Boots a {@link Guest} and runs one shell script in it, for what is not a test but needs the
 * real kernel: the benchmarks under {@code t/bench/} ({@code GUEST=1 t/bench/wipe.sh}). Prints
 * the script's output and the host's load average before and after; exits with the script's
 * status.
 *
 * <p>Arguments: the script file, then the sizes in MiB of the virtio disks ({@code /dev/vda}, ...).
 */
public final class GuestShell {
    private GuestShell() {}

    public static void main(String[] args) throws Exception {
        String script = Files.readString(Path.of(args[0]));
        List<Guest.Disk> disks = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            disks.add(Guest.Disk.mib(Long.parseLong(args[i])));
        }
        System.out.println("host load average before: "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        int status;
        try (Guest.Boot boot = Guest.withDisks(disks)) {
            Guest.Outcome o = boot.run(script, Duration.ofMinutes(60));
            System.out.print(o.output());
            System.out.println("guest: exit " + o.status() + " in " + o.took().toSeconds() + " s");
            status = o.status();
        }
        System.out.println("host load average after: "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        System.exit(status);
    }
}
