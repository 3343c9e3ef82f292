import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The load generator of api.sh: CLIENTS concurrent clients, each a thread with its own HttpClient
 * (its own connection) that trusts the server's certificate alone, run for WARMUP seconds and then
 * for SECONDS measured, each client in a loop picking at random a listing of STORAGE, an alloc of
 * a 1 MiB qcow2 of its own (a fresh name) or a free of one it allocated (an alloc when it has none,
 * a free when it has 20). Afterwards it lists STORAGE once more and checks that every volume
 * allocated and not freed is listed and every freed one is gone. Meanwhile it samples the server's
 * VmRSS (/proc/PID/status) every second, and its heap after a full GC ({@code jcmd PID GC.run},
 * then {@code GC.heap_info}) when the measured part starts, half-way and at the end.
 * Prints a Markdown report; exits 1 on any error, lost volume or memory that grew.
 *   java ApiLoad.java BASE-URL CERT.pem TOKEN NODE STORAGE CLIENTS SECONDS WARMUP PID
 */
public final class ApiLoad {
    enum Op {
        LIST,
        ALLOC,
        FREE
    }

    private static final Pattern VOLID = Pattern.compile("\"volid\":\"([^\"]+)\"");
    private static final Pattern DATA_STRING = Pattern.compile("\\{\"data\":\"([^\"]+)\"\\}");
    private static final int MAX_OWNED = 20;
    /** RSS and heap may grow this much (the JVM's own noise) and still count as flat. */
    private static final double FLAT = 0.10;

    private final String base;
    private final String token;
    private final String content;
    private final SSLContext ssl;
    private final Map<Op, List<long[]>> latencies = new EnumMap<>(Op.class);
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final Set<String> allocated = ConcurrentHashMap.newKeySet();
    private final Set<String> freed = ConcurrentHashMap.newKeySet();
    /** Allocs and frees whose outcome is unknown (no answer): neither counted as done nor lost. */
    private final Set<String> unknown = ConcurrentHashMap.newKeySet();
    private final AtomicInteger listed = new AtomicInteger();
    private volatile long measureFrom;
    private volatile long measureTo;

    private ApiLoad(String base, SSLContext ssl, String token, String node, String storage) {
        this.base = base + "/api2/json";
        this.ssl = ssl;
        this.token = token;
        this.content = "/nodes/" + node + "/storage/" + storage + "/content";
        for (Op op : Op.values()) {
            latencies.put(op, Collections.synchronizedList(new ArrayList<>()));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9) {
            System.err.println("usage: java ApiLoad.java BASE-URL CERT.pem TOKEN NODE STORAGE CLIENTS SECONDS WARMUP PID");
            System.exit(2);
        }
        int clients = Integer.parseInt(args[5]);
        int seconds = Integer.parseInt(args[6]);
        int warmup = Integer.parseInt(args[7]);
        long pid = Long.parseLong(args[8]);
        ApiLoad load = new ApiLoad(args[0], trusting(Path.of(args[1])), args[2], args[3], args[4]);
        System.exit(load.run(clients, seconds, warmup, pid) ? 0 : 1);
    }

    /** TLS that trusts the one certificate in the PEM file (the server's self-signed one), nothing else. */
    static SSLContext trusting(Path pem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            trust.setCertificateEntry("vsm", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }

    private HttpClient client() {
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(120))
                .header("Authorization", "PVEAPIToken=" + token);
    }

    private boolean run(int clients, int seconds, int warmup, long pid) throws Exception {
        long start = System.nanoTime();
        measureFrom = start + warmup * 1_000_000_000L;
        measureTo = measureFrom + seconds * 1_000_000_000L;
        List<long[]> rss = Collections.synchronizedList(new ArrayList<>());
        Thread sampler = new Thread(() -> sample(pid, rss));
        sampler.setDaemon(true);
        sampler.start();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int id = c;
            Thread t = new Thread(() -> client(id), "client-" + c);
            t.start();
            threads.add(t);
        }
        sleepUntil(measureFrom);
        long[] heapStart = heapAfterGc(pid);
        sleepUntil(measureFrom + (measureTo - measureFrom) / 2);
        long[] heapMiddle = heapAfterGc(pid);
        for (Thread t : threads) {
            t.join();
        }
        long[] heapEnd = heapAfterGc(pid);
        long hwm = status(pid, "VmHWM");

        // nothing lost: the listing after the run against what the clients were told
        HttpResponse<String> after = client().send(request(content).GET().build(), HttpResponse.BodyHandlers.ofString());
        Set<String> present = new HashSet<>();
        if (after.statusCode() == 200) {
            Matcher m = VOLID.matcher(after.body());
            while (m.find()) {
                present.add(m.group(1));
            }
        } else {
            errors.add("final listing: HTTP " + after.statusCode());
        }
        List<String> lost = new ArrayList<>();
        List<String> undead = new ArrayList<>();
        for (String v : allocated) {
            if (!freed.contains(v) && !unknown.contains(v) && !present.contains(v)) {
                lost.add(v);
            }
        }
        for (String v : freed) {
            if (present.contains(v)) {
                undead.add(v);
            }
        }
        int live = 0;
        for (String v : allocated) {
            if (!freed.contains(v)) {
                live++;
            }
        }

        System.out.printf(
                Locale.ROOT,
                "%d clients for %d s (after %d s of warm-up) against one `vsm serve`; load average %s at the end.%n%n",
                clients,
                seconds,
                warmup,
                Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println("| operation | done | errors | per second | p50 | p90 | p99 | max |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (Op op : Op.values()) {
            List<long[]> all;
            synchronized (latencies.get(op)) {
                all = new ArrayList<>(latencies.get(op));
            }
            long[] ok = all.stream().filter(l -> l[1] == 0).mapToLong(l -> l[0]).sorted().toArray();
            long failed = all.stream().filter(l -> l[1] != 0).count();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %d | %.1f | %s | %s | %s | %s |%n",
                    op.name().toLowerCase(Locale.ROOT),
                    ok.length,
                    failed,
                    ok.length / (double) seconds,
                    ms(ok, 0.50),
                    ms(ok, 0.90),
                    ms(ok, 0.99),
                    ms(ok, 1.0));
        }
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "Volumes: %d allocated (warm-up included), %d freed, %d left, %d listed at the end; lost: %d; freed but listed: %d; outcome unknown: %d.%n",
                allocated.size(),
                freed.size(),
                live,
                present.size(),
                lost.size(),
                undead.size(),
                unknown.size());
        System.out.println();

        // memory: RSS of the first 20 s of the measured part against its last 20 s
        List<long[]> samples;
        synchronized (rss) {
            samples = new ArrayList<>(rss);
        }
        long window = 20_000_000_000L;
        long[] first = samples.stream()
                .filter(s -> s[0] >= measureFrom && s[0] < measureFrom + window)
                .mapToLong(s -> s[1])
                .sorted()
                .toArray();
        long[] last = samples.stream()
                .filter(s -> s[0] >= measureTo - window && s[0] < measureTo)
                .mapToLong(s -> s[1])
                .sorted()
                .toArray();
        long[] during = samples.stream()
                .filter(s -> s[0] >= measureFrom && s[0] < measureTo)
                .mapToLong(s -> s[1])
                .sorted()
                .toArray();
        boolean rssFlat = median(last) <= median(first) * (1 + FLAT);
        boolean heapFlat = heapEnd[0] <= Math.max(heapStart[0] * (1 + FLAT), heapStart[0] + 8 * 1024);
        System.out.println("| server memory | first 20 s | last 20 s | whole run |");
        System.out.println("|---|---|---|---|");
        System.out.printf(
                Locale.ROOT,
                "| RSS, median (range) of samples 1 s apart | %s | %s | %s |%n",
                mibRange(first),
                mibRange(last),
                mibRange(during));
        System.out.printf(
                Locale.ROOT,
                "| heap in use after a full GC (committed) | %s (%s) at the start | %s (%s) at the end | %s (%s) half-way |%n",
                mib(heapStart[0]),
                mib(heapStart[1]),
                mib(heapEnd[0]),
                mib(heapEnd[1]),
                mib(heapMiddle[0]),
                mib(heapMiddle[1]));
        System.out.printf(Locale.ROOT, "%nPeak RSS (VmHWM) of the server since it started: %s.%n", mib(hwm));
        System.out.printf(
                Locale.ROOT,
                "Flat: RSS %s (last 20 s median %s the first 20 s median + %.0f%%), heap after GC %s (end %s start + %.0f%% or 8 MiB).%n",
                rssFlat ? "yes" : "NO",
                rssFlat ? "within" : "over",
                FLAT * 100,
                heapFlat ? "yes" : "NO",
                heapFlat ? "within" : "over",
                FLAT * 100);
        if (!errors.isEmpty()) {
            System.out.printf("%nErrors (%d; the first 10):%n%n", errors.size());
            errors.stream().limit(10).forEach(e -> System.out.println("- " + e.replace("\n", " ")));
        }
        if (!lost.isEmpty() || !undead.isEmpty()) {
            System.out.printf("%nLost: %s%nFreed but listed: %s%n", head(lost), head(undead));
        }
        return errors.isEmpty() && lost.isEmpty() && undead.isEmpty() && rssFlat && heapFlat;
    }

    private void client(int id) {
        HttpClient http = client();
        Random random = new Random(id);
        List<String> owned = new ArrayList<>();
        int vmid = 3000 + id % 10;
        int next = 0;
        while (true) {
            long begin = System.nanoTime();
            if (begin >= measureTo) {
                return;
            }
            int pick = random.nextInt(3);
            Op op = pick == 0 ? Op.LIST : pick == 1 ? Op.ALLOC : Op.FREE;
            if (op == Op.FREE && owned.isEmpty()) {
                op = Op.ALLOC;
            } else if (op == Op.ALLOC && owned.size() >= MAX_OWNED) {
                op = Op.FREE;
            }
            String volume = null;
            HttpRequest req;
            switch (op) {
                case LIST -> req = request(content).GET().build();
                case ALLOC -> {
                    volume = "vm-" + vmid + "-disk-" + (id * 1_000_000 + next++) + ".qcow2";
                    String form = "vmid=" + vmid + "&filename=" + volume + "&size=1024&format=qcow2";
                    req = request(content)
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(form))
                            .build();
                }
                default -> {
                    volume = owned.remove(random.nextInt(owned.size()));
                    req = request(content + "/" + URLEncoder.encode(volume, StandardCharsets.UTF_8))
                            .DELETE()
                            .build();
                }
            }
            int failed = 0;
            try {
                HttpResponse<String> reply = http.send(req, HttpResponse.BodyHandlers.ofString());
                if (reply.statusCode() != 200) {
                    failed = 1;
                    errors.add(op + " " + (volume == null ? "" : volume + " ") + "HTTP " + reply.statusCode() + ": "
                            + reply.body().substring(0, Math.min(200, reply.body().length())));
                    if (op == Op.FREE) {
                        owned.add(volume); // still there, as far as the client knows
                    }
                } else if (op == Op.ALLOC) {
                    Matcher m = DATA_STRING.matcher(reply.body());
                    if (m.matches()) {
                        allocated.add(m.group(1));
                        owned.add(m.group(1));
                    } else {
                        failed = 1;
                        errors.add("ALLOC " + volume + ": unexpected answer " + reply.body());
                    }
                } else if (op == Op.FREE) {
                    freed.add(volume);
                } else {
                    listed.incrementAndGet();
                }
            } catch (IOException e) {
                failed = 1;
                errors.add(op + " " + (volume == null ? "" : volume + " ") + e);
                if (volume != null) {
                    unknown.add(op == Op.ALLOC ? "?" + volume : volume);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long end = System.nanoTime();
            if (begin >= measureFrom && end <= measureTo) {
                latencies.get(op).add(new long[] {end - begin, failed});
            }
        }
    }

    private void sample(long pid, List<long[]> rss) {
        while (true) {
            long t = System.nanoTime();
            long kib = status(pid, "VmRSS");
            if (kib >= 0) {
                rss.add(new long[] {t, kib});
            }
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** A field of /proc/PID/status in KiB, or -1. */
    private static long status(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    /** The server's heap in use after a full GC and the heap's committed size, in KiB ({@code jcmd}), or -1s. */
    private static long[] heapAfterGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        Matcher m = Pattern.compile("total ([0-9]+)K, used ([0-9]+)K").matcher(jcmd(pid, "GC.heap_info"));
        return m.find() ? new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(1))} : new long[] {-1, -1};
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("jcmd", Long.toString(pid), command)
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    private static String ms(long[] sorted, double q) {
        if (sorted.length == 0) {
            return "-";
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return String.format(Locale.ROOT, "%.1f ms", sorted[Math.max(0, i)] / 1e6);
    }

    private static long median(long[] sorted) {
        return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
    }

    private static String mib(long kib) {
        return kib < 0 ? "?" : String.format(Locale.ROOT, "%.1f MiB", kib / 1024.0);
    }

    private static String mibRange(long[] sorted) {
        return sorted.length == 0
                ? "-"
                : mib(median(sorted)) + " (" + mib(sorted[0]) + "–" + mib(sorted[sorted.length - 1]) + ")";
    }

    private static String head(List<String> list) {
        return list.size() <= 10 ? list.toString() : list.subList(0, 10) + " and " + (list.size() - 10) + " more";
    }
}
