package dev.vsm.cli.command;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.Channels;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The source of {@code import-stream}, as {@code pvesm import} reads its file name: {@code -}
 * (standard input), {@code tcp://<ip>} or {@code tcp://<cidr>} (listen on that address, or on this
 * host's one address in that network, at the first free port of 60000–60050; print the address and
 * the port on standard output, one a line; take one connection within 30 seconds),
 * {@code unix://<path>} (listen on a new socket there; print {@code ready}; take one connection
 * within 30 seconds), else a file.
 */
final class StreamSource {
    private static final Pattern TCP = Pattern.compile("tcp://(([^/]+)(/\\d+)?)");
    private static final String UNIX = "unix://";
    /** pve's {@code next_migrate_port} range. */
    static final int FIRST_PORT = 60000;

    static final int LAST_PORT = 60050;
    /** How long pvesm import waits for its one client. */
    private static final long ACCEPT_TIMEOUT_MS = 30_000;

    private StreamSource() {}

    /** Whether {@code argument} names a socket to listen on rather than a file. */
    static boolean isSocket(String argument) {
        return TCP.matcher(argument).matches() || argument.startsWith(UNIX);
    }

    /**
     * Listens where {@code argument} says, tells {@code out} where (and flushes it), and returns the
     * one client's connection; the listening socket (and a unix socket's file) is gone by then.
     */
    static InputStream accept(String argument, PrintStream out) {
        Matcher tcp = TCP.matcher(argument);
        if (tcp.matches()) {
            return acceptTcp(tcp.group(1), tcp.group(2), tcp.group(3), out);
        }
        return acceptUnix(Path.of(argument.substring(UNIX.length())), out);
    }

    private static InputStream acceptTcp(String cidr, String host, String subnet, PrintStream out) {
        InetAddress ip =
                subnet != null ? localAddressIn(cidr, host, Integer.parseInt(subnet.substring(1))) : address(host);
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open(
                    ip instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            int port = bindFirstFree(server, ip);
            String shown = subnet != null ? ip.getHostAddress() : host;
            return connection(server, out, shown + "\n" + port + "\n"); // tell the sender where to connect
        } catch (IOException e) {
            throw StorageException.failed(e, "failed to open socket: %s", e.getMessage());
        } finally {
            closeQuietly(server);
        }
    }

    private static int bindFirstFree(ServerSocketChannel server, InetAddress ip) throws IOException {
        IOException last = null;
        for (int port = FIRST_PORT; port <= LAST_PORT; port++) {
            try {
                server.bind(new InetSocketAddress(ip, port), 1);
                return port;
            } catch (java.net.BindException e) {
                if (e.getMessage() != null && e.getMessage().contains("assign")) {
                    throw StorageException.badInput(
                            "tcp://%s: not an address of this host (%s)", ip.getHostAddress(), e.getMessage());
                }
                last = e;
            }
        }
        throw StorageException.failed(last, "unable to find free port (%d-%d)", FIRST_PORT, LAST_PORT);
    }

    private static InetAddress address(String host) {
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw StorageException.badInput(
                    "tcp://%s: not an IP address, a network or a host name", VolumeId.printable(host));
        }
    }

    /** This host's one address in network {@code cidr} (pve's {@code get_local_ip_from_cidr}). */
    private static InetAddress localAddressIn(String cidr, String network, int prefix) {
        InetAddress net = address(network);
        int bits = net.getAddress().length * 8;
        if (prefix > bits) {
            throw StorageException.badInput(
                    "tcp://%s: prefix /%d is longer than %d bits", VolumeId.printable(cidr), prefix, bits);
        }
        List<InetAddress> found = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
                    InetAddress a = ia.getAddress();
                    if (a.getAddress().length == net.getAddress().length
                            && samePrefix(a.getAddress(), net.getAddress(), prefix)
                            && !found.contains(a)) {
                        found.add(a);
                    }
                }
            }
        } catch (SocketException e) {
            throw StorageException.failed(e, "cannot list this host's addresses: %s", e.getMessage());
        }
        if (found.isEmpty()) {
            throw StorageException.badInput(
                    "Unable to get any local IP address in network '%s'", VolumeId.printable(cidr));
        }
        if (found.size() > 1) {
            throw StorageException.badInput("Got multiple local IP address in network '%s'", VolumeId.printable(cidr));
        }
        return found.get(0);
    }

    static boolean samePrefix(byte[] a, byte[] b, int prefix) {
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >> (bit % 8);
            if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    private static InputStream acceptUnix(Path socket, PrintStream out) {
        if (socket.toString().isEmpty()) {
            throw StorageException.badInput("unix://: no socket path");
        }
        ServerSocketChannel server = null;
        boolean bound = false;
        try {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket), 1);
            bound = true;
            return connection(server, out, "ready\n");
        } catch (IOException e) {
            throw StorageException.failed(e, "failed to open socket: %s", e.getMessage());
        } finally {
            closeQuietly(server);
            if (bound) {
                try {
                    Files.deleteIfExists(socket);
                } catch (IOException ignored) {
                    // the socket file is vsm's own; a leftover is harmless
                }
            }
        }
    }

    /** Prints {@code told} to {@code out}, then waits for the one client that connects within the timeout. */
    private static InputStream connection(ServerSocketChannel server, PrintStream out, String told) throws IOException {
        out.print(told);
        out.flush();
        server.configureBlocking(false);
        try (Selector selector = Selector.open()) {
            server.register(selector, SelectionKey.OP_ACCEPT);
            long deadline = System.currentTimeMillis() + ACCEPT_TIMEOUT_MS;
            while (true) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw StorageException.failed("timed out waiting for client");
                }
                selector.select(left);
                SocketChannel client = server.accept();
                if (client != null) {
                    client.configureBlocking(true);
                    return new BufferedInputStream(Channels.newInputStream(client), 1 << 16);
                }
            }
        }
    }

    private static void closeQuietly(ServerSocketChannel server) {
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // the listening socket is done with either way
            }
        }
    }
}
