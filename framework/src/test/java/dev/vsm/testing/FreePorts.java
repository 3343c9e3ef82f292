package dev.vsm.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports on 127.0.0.1 for test servers that must be told theirs before they start (ZooKeeper's
 * ensembles: each server is given the others' ports).
 *
 * <p>Why not "bind port 0, note it, close it", as Curator does for a port of -1: that port comes
 * from the kernel's ephemeral range, which every outgoing connection on the machine draws its
 * local port from too (a vsm process connecting to ZooKeeper, Maven, another suite). One of them
 * may take it before the server binds it; a ZooKeeper server that cannot bind its quorum port ends
 * the whole JVM (exit 14), which surefire reports as a crashed fork. These ports are drawn below
 * the ephemeral range instead, where the kernel hands out none, never twice in one JVM, and each
 * is checked free when drawn.
 */
public final class FreePorts {
    private static final int LOWEST = 10_000;
    private static final Set<Integer> GIVEN = new HashSet<>();

    private FreePorts() {}

    /** A port below the ephemeral range that is free now and that this JVM has not given before. */
    public static synchronized int next() {
        int below = ephemeralLow();
        for (int tries = 0; tries < 1000; tries++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
            if (GIVEN.contains(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            } catch (IOException taken) {
                continue;
            }
            GIVEN.add(port);
            return port;
        }
        throw new IllegalStateException("no free port between " + LOWEST + " and " + below);
    }

    /** The lowest port of the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}). */
    private static int ephemeralLow() {
        // read as a stream: Files.readString trusts the size /proc reports and reads one byte
        try (BufferedReader reader = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            int low = Integer.parseInt(reader.readLine().strip().split("\\s+")[0]);
            if (low <= LOWEST + 1000) {
                throw new IllegalStateException("the ephemeral port range starts at " + low
                        + ": too low to draw test ports below it (net.ipv4.ip_local_port_range)");
            }
            return low;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
