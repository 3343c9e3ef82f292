package dev.vsm.t.support;

import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * A network namespace of its own for a vsm "node", joined to the host by a veth pair, so that a
 * test can cut that node off the network ({@code ip link set down}) while it runs, as a real
 * partition would. Its names are unique ({@code vsm-<random>}, veths {@code vsmh<random>} and
 * {@code vsmn<random>}, a random /30 of 198.18.0.0/15, the range set aside for network tests), so
 * it collides with nothing else on the machine; {@link #close} removes the namespace and the veth
 * pair, also after a failure, and stops the forwarders.
 *
 * <p>ZooKeeper in the test JVM listens on 127.0.0.1, which the namespace cannot reach: for each
 * server, {@link #forward} listens on the host's end of the pair and relays each connection to
 * it. A cut stops every packet on the pair; the relayed TCP connections stay open but silent, so
 * the servers expire the node's session as they would a partitioned host's.
 */
public final class NetworkNamespace implements AutoCloseable {
    private final String name;
    private final String hostVeth;
    private final String nodeVeth;
    private final String hostAddress;
    private final String nodeAddress;
    private final List<ServerSocket> listeners = new ArrayList<>();
    private final List<Socket> relayed = new ArrayList<>();
    private boolean created;

    private NetworkNamespace() {
        String id = Long.toString(ThreadLocalRandom.current().nextLong(1L << 30, 1L << 35), 36);
        name = "vsm-" + id;
        hostVeth = "vsmh" + id;
        nodeVeth = "vsmn" + id;
        int net = ThreadLocalRandom.current().nextInt(1 << 15) * 4; // a /30 in 198.18.0.0/15
        String prefix = "198." + (18 + (net >> 16)) + "." + ((net >> 8) & 0xff) + ".";
        hostAddress = prefix + ((net & 0xff) + 1);
        nodeAddress = prefix + ((net & 0xff) + 2);
    }

    /** Makes the namespace, the veth pair (up, addressed) and the namespace's loopback; needs root and {@code ip}. */
    public static NetworkNamespace create() {
        HostTools.require("network namespaces", "/usr/sbin/ip");
        NetworkNamespace ns = new NetworkNamespace();
        try {
            ns.ip("netns", "add", ns.name);
            ns.created = true;
            ns.ip("link", "add", ns.hostVeth, "type", "veth", "peer", "name", ns.nodeVeth);
            ns.ip("link", "set", ns.nodeVeth, "netns", ns.name);
            ns.ip("addr", "add", ns.hostAddress + "/30", "dev", ns.hostVeth);
            ns.ip("link", "set", ns.hostVeth, "up");
            ns.inside("addr", "add", ns.nodeAddress + "/30", "dev", ns.nodeVeth);
            ns.inside("link", "set", ns.nodeVeth, "up");
            ns.inside("link", "set", "lo", "up");
            return ns;
        } catch (RuntimeException | Error e) {
            ns.close();
            throw e;
        }
    }

    public String name() {
        return name;
    }

    /**
     * Relays {@code host:port}s (a ZooKeeper connect string on 127.0.0.1) from the host's end of the
     * pair, same ports; returns the connect string the namespace uses.
     */
    public String forward(String connectString) {
        List<String> reachable = new ArrayList<>();
        for (String server : connectString.split(",")) {
            int colon = server.lastIndexOf(':');
            String host = server.substring(0, colon);
            int port = Integer.parseInt(server.substring(colon + 1));
            try {
                ServerSocket listener = new ServerSocket();
                listener.bind(new InetSocketAddress(InetAddress.getByName(hostAddress), port));
                listeners.add(listener);
                Thread accept = new Thread(() -> accept(listener, host, port), "relay-" + name + "-" + port);
                accept.setDaemon(true);
                accept.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            reachable.add(hostAddress + ":" + port);
        }
        return String.join(",", reachable);
    }

    private void accept(ServerSocket listener, String host, int port) {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(host, port);
                synchronized (relayed) {
                    relayed.add(client);
                    relayed.add(server);
                }
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // the listener was closed, or the server refused: the client sees its connection fail
            }
        }
    }

    private void pump(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Thread t = new Thread(
                () -> {
                    try {
                        in.transferTo(out);
                    } catch (IOException e) {
                        // one side closed
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "relay-" + name);
        t.setDaemon(true);
        t.start();
    }

    /**
     * A launcher script in {@code dir} that runs the real {@code cli/vsm} inside the namespace
     * ({@code ip netns exec} execs it: the process started is vsm).
     */
    public Path launcher(Path dir) {
        try {
            Path script = dir.resolve("vsm-in-" + name);
            Files.writeString(
                    script, "#!/bin/sh\nexec /usr/sbin/ip netns exec " + name + " " + Vsm.LAUNCHER + " \"$@\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
            return script;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Cuts the namespace off: its end of the pair goes down, and nothing passes either way. */
    public void cut() {
        inside("link", "set", nodeVeth, "down");
    }

    /** Joins it again. */
    public void heal() {
        inside("link", "set", nodeVeth, "up");
    }

    private void inside(String... args) {
        List<String> argv = new ArrayList<>(List.of("netns", "exec", name, "/usr/sbin/ip"));
        argv.addAll(List.of(args));
        ip(argv.toArray(String[]::new));
    }

    private void ip(String... args) {
        List<String> argv = new ArrayList<>(List.of("/usr/sbin/ip"));
        argv.addAll(List.of(args));
        HostTools.mustRun(Map.of(), argv.toArray(String[]::new));
    }

    /** Stops the relays, removes the namespace and the veth pair; every step is tried, failures reported together. */
    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        listeners.forEach(NetworkNamespace::closeQuietly);
        synchronized (relayed) {
            relayed.forEach(NetworkNamespace::closeQuietly);
        }
        if (created) {
            try {
                ip("netns", "del", name); // destroys its end of the pair, and so the pair
            } catch (AssertionError | RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        try {
            // the kernel removes the namespace's end, and with it the host's, in the background
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            while (hostVethExists() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (hostVethExists()) {
                HostTools.run(Map.of(), "/usr/sbin/ip", "link", "del", hostVeth);
            }
            if (hostVethExists()) {
                problems.add("veth " + hostVeth + " is still there");
            }
            String namespaces = HostTools.mustRun(Map.of(), "/usr/sbin/ip", "netns", "list");
            if (namespaces
                    .lines()
                    .map(l -> l.split(" ")[0])
                    .collect(Collectors.toSet())
                    .contains(name)) {
                problems.add("namespace " + name + " is still there");
            }
        } catch (AssertionError | RuntimeException e) {
            problems.add(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problems.add("interrupted");
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("removing network namespace " + name + ": " + String.join("; ", problems));
        }
    }

    private boolean hostVethExists() {
        return HostTools.run(Map.of(), "/usr/sbin/ip", "link", "show", "dev", hostVeth)
                        .exit()
                == 0;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
