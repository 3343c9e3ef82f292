package dev.vsm.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.AccessException;
import dev.vsm.server.access.AccessFile;
import dev.vsm.server.access.Permissions;
import dev.vsm.server.access.Tickets;
import dev.vsm.server.endpoint.Contents;
import dev.vsm.server.endpoint.Nodes;
import dev.vsm.server.endpoint.Prunes;
import dev.vsm.server.endpoint.StorageConfigs;
import dev.vsm.server.endpoint.StorageStatus;
import dev.vsm.server.endpoint.TaskList;
import dev.vsm.server.endpoint.TaskStatus;
import dev.vsm.server.endpoint.Uploads;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Counted;
import dev.vsm.server.route.RequestBody;
import dev.vsm.server.route.Route;
import dev.vsm.server.route.Router;
import dev.vsm.server.task.Tasks;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * pve's storage API ({@code /api2/json}) over HTTPS, on Jetty's core (no servlets): each request is
 * authenticated against the {@link AccessFile} (read anew each time, so that {@code vsm token} and
 * {@code vsm acl} take effect at once), routed to its endpoint, and answered with pve's JSON shapes;
 * the storages are reached through a new {@link VsmStorage} per request. Bodies are limited to
 * pve's 64 KiB (an upload's to its own limit, streamed), headers to its 8 KiB.
 */
public final class VsmServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VsmServer.class);
    private static final String PREFIX = "/api2/json/";
    /** pve's cookie of a login ticket. */
    static final String TICKET_COOKIE = "PVEAuthCookie";
    /** pve's header of a CSRF prevention token. */
    static final String CSRF_HEADER = "CSRFPreventionToken";
    /** pve-http-server's limit on a request's body. */
    static final int MAX_BODY = 64 * 1024;
    /**
     * How much of a refused request's body is read and dropped before the answer (as a web
     * server's lingering close): a client still sending when the connection closes loses the
     * answer to a reset. An upload refused for its size has up to this much left to be told so.
     */
    static final int MAX_DRAINED = 4 * 1024 * 1024;

    /** The server's threads, for requests and for connections' I/O and TLS handshakes alike. */
    private static final int THREADS = 32;

    private static final int LOGIN_THREADS = 2;
    private static final int LOGINS_WAITING = 64;

    /** pve answers a failed authentication this long after the request began, to slow the guessing of passwords. */
    static final Duration AUTH_FAILURE_DELAY = Duration.ofSeconds(3);

    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final Server server;
    private final ServerConnector connector;
    /**
     * Where logins' passwords are checked (PBKDF2, CPU-bound, about 0.3 s each): {@value
     * #LOGIN_THREADS} at once, {@value #LOGINS_WAITING} more waiting without a thread of the
     * server's, so that a flood of logins takes neither the server's threads nor its limits' room.
     */
    private final ThreadPoolExecutor logins = new ThreadPoolExecutor(
            LOGIN_THREADS, LOGIN_THREADS, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(LOGINS_WAITING), r -> {
                Thread t = new Thread(r, "vsm-login");
                t.setDaemon(true);
                return t;
            });

    private VsmServer(Builder b) {
        QueuedThreadPool threads = new QueuedThreadPool(THREADS, 2);
        threads.setName("vsm-serve");
        server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(8 * 1024);
        // a volume id in a path comes with its slash encoded (%2F), as pve's clients send it
        http.setUriCompliance(UriCompliance.DEFAULT.with(
                "vsm",
                UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR,
                UriCompliance.Violation.AMBIGUOUS_PATH_ENCODING));
        SecureRequestCustomizer secure = new SecureRequestCustomizer();
        // clients reach the node by address or by any name: the certificate need not carry it
        secure.setSniHostCheck(false);
        http.addCustomizer(secure);
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setKeyStore(b.keyStore);
        ssl.setKeyStorePassword("");
        ssl.setKeyManagerPassword("");
        connector = new ServerConnector(
                server,
                new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(http));
        connector.setHost(b.address.getHostString());
        connector.setPort(b.address.getPort());
        server.addConnector(connector);
        List<Route> routes = new ArrayList<>();
        routes.addAll(new Nodes(b.version, fingerprint(b.keyStore)).routes());
        routes.addAll(new StorageConfigs(b.access).routes());
        routes.addAll(new StorageStatus().routes());
        Tasks tasks = new Tasks();
        routes.addAll(new Contents(tasks).routes());
        routes.addAll(new Uploads(tasks, b.maxUpload).routes());
        routes.addAll(new TaskStatus(tasks).routes());
        routes.addAll(new TaskList(tasks).routes());
        routes.addAll(new Prunes(tasks).routes());
        server.setErrorHandler(new JsonErrors());
        Api api = new Api(new Router(routes, b.storage), b.access, b.tickets);
        server.setHandler(new GracefulHandler(new Gate(api, limited(api, THREADS - 12, 8), logins)));
        // in-flight requests get this long to finish when the server stops (SIGTERM)
        server.setStopTimeout(30_000);
    }

    /**
     * {@code api} run for at most {@code requests} requests at once, of which at most {@code changes}
     * change something (POST, PUT, DELETE: those that wait for a storage's lock); the others wait
     * their turn without a thread (Jetty's {@link QoSHandler}), 10 minutes at most (then 503).
     * Without it, 50 clients changing one storage blocked every thread of the pool on its lock, and
     * new connections' TLS handshakes, which need a thread too, timed out.
     */
    static Handler limited(Handler api, int requests, int changes) {
        QoSHandler all = new QoSHandler(api);
        all.setMaxRequestCount(requests);
        all.setMaxSuspend(Duration.ofMinutes(10));
        QoSHandler changing = new QoSHandler(all);
        changing.includeMethod("POST", "PUT", "DELETE");
        changing.setMaxRequestCount(changes);
        changing.setMaxSuspend(Duration.ofMinutes(10));
        return changing;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How a {@link VsmServer} is made. */
    public static final class Builder {
        private InetSocketAddress address = new InetSocketAddress("127.0.0.1", 8006);
        private KeyStore keyStore;
        private AccessFile access;
        private Tickets tickets;
        private Supplier<VsmStorage> storage;
        private String version = "unknown";
        private long maxUpload = 64L << 30;

        private Builder() {}

        /** The most bytes an upload's body may have (default 64 GiB); more is refused with 413 and kept nowhere. */
        public Builder maxUpload(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("maxUpload: " + bytes);
            }
            this.maxUpload = bytes;
            return this;
        }

        public Builder listen(InetSocketAddress address) {
            this.address = requireNonNull(address, "address");
            return this;
        }

        /** The certificate and key ({@link Tls}). */
        public Builder keyStore(KeyStore keyStore) {
            this.keyStore = requireNonNull(keyStore, "keyStore");
            return this;
        }

        public Builder access(AccessFile access) {
            this.access = requireNonNull(access, "access");
            return this;
        }

        /** The key of the login tickets and CSRF tokens. */
        public Builder tickets(Tickets tickets) {
            this.tickets = requireNonNull(tickets, "tickets");
            return this;
        }

        /** Makes the {@link VsmStorage} a request works with. */
        public Builder storage(Supplier<VsmStorage> storage) {
            this.storage = requireNonNull(storage, "storage");
            return this;
        }

        /** vsm's version, for {@code GET /version}. */
        public Builder version(String version) {
            this.version = requireNonNull(version, "version");
            return this;
        }

        public VsmServer build() {
            requireNonNull(keyStore, "keyStore");
            requireNonNull(access, "access");
            requireNonNull(tickets, "tickets");
            requireNonNull(storage, "storage");
            return new VsmServer(this);
        }
    }

    /** Starts listening; fails when the address cannot be bound. */
    public void start() throws Exception {
        server.start();
    }

    /** The port it listens on (the one chosen when 0 was asked for). */
    public int port() {
        return connector.getLocalPort();
    }

    /** Waits until it has stopped. */
    public void join() throws InterruptedException {
        server.join();
    }

    /** Stops taking requests, lets those in flight finish (30 s at most), and closes. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("the server did not stop cleanly", e);
        } finally {
            logins.shutdownNow();
        }
    }

    /** pve's {@code ssl_fingerprint}: the certificate's SHA-256, colon-separated upper-case hex. */
    static String fingerprint(KeyStore store) {
        try {
            String alias = store.aliases().nextElement();
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(store.getCertificate(alias).getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the server's certificate", e);
        }
    }

    /** An answer: its HTTP status and its JSON body (null: none). */
    record Outcome(int status, Object body) {}

    /**
     * Authentication, before the limits ({@link #limited}): a request that fails it (a wrong
     * password, token secret, ticket or CSRF token: every 401) is answered, as pve answers it,
     * {@link #AUTH_FAILURE_DELAY} after it began, from the server's scheduler, holding neither a
     * thread nor a limit's room meanwhile, so that a flood of them cannot keep others waiting. A
     * login's password is checked on the {@code logins} executor (a full one: 503); other
     * requests go on, as the caller they authenticated as, to the limits and the API.
     */
    private static final class Gate extends Handler.Wrapper {
        /** The request's attribute that holds who made it. */
        static final String WHO = "vsm.who";

        private final Api api;
        private final Executor logins;

        Gate(Api api, Handler limited, Executor logins) {
            super(limited);
            this.api = api;
            this.logins = logins;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String path = request.getHttpURI().getPath();
            if (request.getMethod().equalsIgnoreCase("POST")
                    && (path.equals(PREFIX + "access/ticket") || path.equals(PREFIX + "access/ticket/"))) {
                Map<String, String> params;
                try {
                    params = Api.parameters(request, "POST");
                } catch (RuntimeException e) {
                    Api.respond(request, response, callback, api.failure(request, e));
                    return true;
                }
                try {
                    logins.execute(
                            () -> answer(request, response, callback, api.outcome(request, () -> api.login(params))));
                } catch (RejectedExecutionException e) {
                    Api.respond(
                            request,
                            response,
                            callback,
                            new Outcome(503, error("too many logins at once: try again", Map.of())));
                }
                return true;
            }
            try {
                request.setAttribute(WHO, api.authenticate(request));
            } catch (RuntimeException e) {
                answer(request, response, callback, api.failure(request, e));
                return true;
            }
            return super.handle(request, response, callback);
        }

        /** Answers now, or a failed authentication (401) {@link #AUTH_FAILURE_DELAY} after the request began. */
        private void answer(Request request, Response response, Callback callback, Outcome outcome) {
            if (outcome.status() != 401) {
                Api.respond(request, response, callback, outcome);
                return;
            }
            boolean close = !Api.drained(request);
            long left = request.getBeginNanoTime() + AUTH_FAILURE_DELAY.toNanos() - System.nanoTime();
            getServer()
                    .getScheduler()
                    .schedule(() -> Api.write(response, callback, outcome, close), left, TimeUnit.NANOSECONDS);
        }
    }

    /** The API: route and answer, as whom {@link Gate} found the request made by. */
    private static final class Api extends Handler.Abstract {
        private final Router router;
        private final AccessFile access;
        private final Tickets tickets;

        Api(Router router, AccessFile access, Tickets tickets) {
            this.router = router;
            this.access = access;
            this.tickets = tickets;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            respond(request, response, callback, outcome(request, () -> answer(request)));
            return true;
        }

        /** What {@code work} answers, or its {@link #failure}. */
        Outcome outcome(Request request, Supplier<Object> work) {
            Object data;
            try {
                data = work.get();
            } catch (RuntimeException e) {
                return failure(request, e);
            }
            if (data instanceof Counted page) {
                Map<String, Object> m = envelope(page.data(), null);
                m.put("total", page.total());
                return new Outcome(200, m);
            }
            return new Outcome(200, envelope(data, null));
        }

        /** A request's failure as pve answers it. */
        Outcome failure(Request request, RuntimeException failure) {
            if (failure instanceof Unauthorized) {
                return new Outcome(401, null);
            } else if (failure instanceof ApiException e) {
                return new Outcome(e.status(), error(e.getMessage(), e.errors()));
            } else if (failure instanceof StorageException e) {
                return new Outcome(
                        e.kind() == StorageException.Kind.BAD_INPUT ? 400 : 500, error(e.getMessage(), Map.of()));
            } else if (failure instanceof AccessException e) {
                LOG.error("the access file: {}", e.getMessage());
                return new Outcome(500, error("the server's access file is unusable: see its log", Map.of()));
            }
            LOG.error("{} {} failed", request.getMethod(), request.getHttpURI().getPath(), failure);
            return new Outcome(500, error("internal error: see the server's log", Map.of()));
        }

        /** Answers now: what is left of a refused request's body is read first ({@link #drained}). */
        static void respond(Request request, Response response, Callback callback, Outcome outcome) {
            write(response, callback, outcome, outcome.status() != 200 && !drained(request));
        }

        /**
         * Writes the answer; {@code close}: Jetty closes a connection whose request body is left
         * unread, so say so, or the client sends its next request into it.
         */
        static void write(Response response, Callback callback, Outcome outcome, boolean close) {
            response.setStatus(outcome.status());
            if (close) {
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            if (outcome.body() == null) {
                response.write(true, null, callback);
                return;
            }
            try {
                byte[] bytes = JSON.writeValueAsBytes(outcome.body());
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json;charset=UTF-8");
                response.getHeaders().put(HttpHeader.CACHE_CONTROL, "max-age=0");
                response.write(true, ByteBuffer.wrap(bytes), callback);
            } catch (IOException e) {
                callback.failed(e);
            }
        }

        /** Reads and drops what is left of a refused request's body, up to {@link #MAX_DRAINED}; false when more is left. */
        static boolean drained(Request request) {
            if (request.getLength() == 0) {
                return true;
            }
            try (InputStream in = Content.Source.asInputStream(request)) {
                byte[] buffer = new byte[8192];
                long left = MAX_DRAINED + 1L;
                for (int n; left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0; ) {
                    left -= n;
                }
                return left > 0;
            } catch (IOException e) {
                return false;
            }
        }

        private Object answer(Request request) {
            String method = request.getMethod().toUpperCase(Locale.ROOT);
            String path = request.getHttpURI().getPath();
            Permissions who = request.getAttribute(Gate.WHO) instanceof Permissions p ? p : authenticate(request);
            if (!path.startsWith(PREFIX)) {
                throw ApiException.of(501, "Method '" + method + " " + printable(path) + "' not implemented");
            }
            List<String> segments = new ArrayList<>();
            for (String s : path.substring(PREFIX.length()).split("/", -1)) {
                segments.add(decode(s));
            }
            if (!segments.isEmpty() && segments.get(segments.size() - 1).isEmpty()) {
                segments.remove(segments.size() - 1);
            }
            Router.Match match = router.find(method, segments);
            if (match.streamed()) {
                Map<String, String> query = new HashMap<>();
                parse(request.getHttpURI().getQuery(), query);
                RequestBody body = new RequestBody(
                        request.getHeaders().get(HttpHeader.CONTENT_TYPE),
                        request.getLength(),
                        Content.Source.asInputStream(request));
                return router.call(match, query, who, body);
            }
            return router.call(match, parameters(request, method), who, null);
        }

        /**
         * An API token's header, or pve's ticket in its {@code PVEAuthCookie}; with the cookie, a
         * request other than GET must carry a valid {@code CSRFPreventionToken} header too (a
         * browser sends the cookie to any page's request, but only the API's own pages can read
         * the token), checked before anything is read or changed.
         */
        Permissions authenticate(Request request) {
            String method = request.getMethod().toUpperCase(Locale.ROOT);
            AccessFile.Contents contents = access.read();
            String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
            if (header != null) {
                return Permissions.authenticate(contents, header).orElseThrow(Unauthorized::new);
            }
            String cookie = null;
            for (HttpCookie c : Request.getCookies(request)) {
                if (c.getName().equals(TICKET_COOKIE)) {
                    cookie = c.getValue();
                }
            }
            if (cookie == null) {
                throw new Unauthorized();
            }
            String user = tickets.verify(cookie.contains("%") ? decode(cookie) : cookie)
                    .orElseThrow(Unauthorized::new);
            Permissions who = Permissions.ofTicketUser(contents, user).orElseThrow(Unauthorized::new);
            if (!method.equals("GET")
                    && !tickets.verifyCsrf(user, request.getHeaders().get(CSRF_HEADER))) {
                throw ApiException.of(401, "Permission denied - invalid csrf token");
            }
            return who;
        }

        /**
         * pve's {@code POST /access/ticket}: {@code username} (with {@code @realm}, or the realm
         * apart in {@code realm}) and {@code password}, or a valid ticket of the same user in
         * place of the password (a renewal, as proxmoxer does every hour).
         */
        Object login(Map<String, String> params) {
            for (String name : params.keySet()) {
                if (!Set.of("username", "password", "realm", "otp", "path", "privs", "new-format")
                        .contains(name)) {
                    throw ApiException.badParameter(
                            name,
                            "property is not defined in schema and the schema does not allow additional properties");
                }
            }
            String user = params.get("username");
            String password = params.get("password");
            if (user == null) {
                throw ApiException.badParameter("username", "property is missing and it is not optional");
            }
            if (password == null) {
                throw ApiException.badParameter("password", "property is missing and it is not optional");
            }
            if (params.get("realm") != null && !user.contains("@")) {
                user = user + "@" + params.get("realm");
            }
            if (params.get("otp") != null) {
                throw ApiException.badParameter("otp", "vsm has no second factor: leave 'otp' out");
            }
            AccessFile.Contents contents = access.read();
            String name = user;
            Optional<Permissions> who = password.startsWith("PVE:")
                    ? tickets.verify(password).filter(name::equals).flatMap(u -> Permissions.ofTicketUser(contents, u))
                    : Permissions.login(contents, user, password.toCharArray());
            if (who.isEmpty()) {
                LOG.warn("authentication failure; user={}", printable(user));
                throw ApiException.of(401, "authentication failure");
            }
            Map<String, Object> storage = new TreeMap<>();
            who.get().held("/storage").forEach(p -> storage.put(p.pveName(), 1));
            Map<String, Object> cap = new LinkedHashMap<>();
            for (String kind : List.of("vms", "access", "nodes", "dc", "sdn", "mapping")) {
                cap.put(kind, Map.of());
            }
            cap.put("storage", storage);
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("username", user);
            data.put("ticket", tickets.ticket(user));
            data.put("CSRFPreventionToken", tickets.csrfToken(user));
            data.put("cap", cap);
            return data;
        }

        /** The query's parameters and, for a change, the form body's (pve's 64 KiB at most). */
        static Map<String, String> parameters(Request request, String method) {
            Map<String, String> params = new HashMap<>();
            parse(request.getHttpURI().getQuery(), params);
            if (method.equals("GET")) {
                return params;
            }
            long length = request.getLength();
            if (length > MAX_BODY) {
                throw ApiException.of(413, "request entity too large");
            }
            byte[] body;
            try (InputStream in = Content.Source.asInputStream(request)) {
                body = in.readNBytes(MAX_BODY + 1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (body.length > MAX_BODY) {
                throw ApiException.of(413, "request entity too large");
            }
            if (body.length > 0) {
                String type = Optional.ofNullable(request.getHeaders().get(HttpHeader.CONTENT_TYPE))
                        .orElse("")
                        .toLowerCase(Locale.ROOT);
                if (type.startsWith("application/x-www-form-urlencoded")) {
                    parse(new String(body, StandardCharsets.UTF_8), params);
                } else if (type.startsWith("application/json")) {
                    json(body, params);
                } else {
                    throw ApiException.of(415, "unsupported content type '" + printable(type) + "'");
                }
            }
            return params;
        }

        private static void parse(String query, Map<String, String> params) {
            if (query == null || query.isEmpty()) {
                return;
            }
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = form(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : form(pair.substring(eq + 1));
                if (params.put(name, value) != null) {
                    throw ApiException.badParameter(name, "given more than once");
                }
            }
        }

        private static void json(byte[] body, Map<String, String> params) {
            try {
                var tree = JSON.readTree(body);
                if (tree == null || !tree.isObject()) {
                    throw ApiException.badRequest("the JSON body is not an object");
                }
                tree.properties().forEach(e -> {
                    if (e.getValue().isContainerNode()) {
                        throw ApiException.badParameter(e.getKey(), "not a string or number");
                    }
                    params.put(e.getKey(), e.getValue().asText());
                });
            } catch (IOException e) {
                throw ApiException.badRequest("the body is not JSON");
            }
        }

        private static String form(String s) {
            try {
                return URLDecoder.decode(s, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("bad percent-encoding in '" + printable(s) + "'");
            }
        }

        /** A path segment's percent-encoding decoded ({@code +} stays itself, as in a path). */
        private static String decode(String segment) {
            return form(segment.replace("+", "%2B"));
        }
    }

    private static Map<String, Object> envelope(Object data, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("data", data);
        if (message != null) {
            m.put("message", message);
        }
        return m;
    }

    /** pve's error body: {@code data} null, the message with pve's newline, and the bad parameters. */
    private static Map<String, Object> error(String message, Map<String, String> errors) {
        Map<String, Object> m = envelope(null, message + "\n");
        if (!errors.isEmpty()) {
            m.put("errors", errors);
        }
        return m;
    }

    private static String printable(String s) {
        return dev.vsm.spi.VolumeId.printable(s);
    }

    /**
     * What Jetty refuses before a handler runs (a malformed request line, an ambiguous path, headers
     * too large) is answered in pve's shape too, not with an HTML page.
     */
    private static final class JsonErrors extends ErrorHandler {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = request.getAttribute(ERROR_STATUS) instanceof Integer code ? code : 500;
            Object message = request.getAttribute(ERROR_MESSAGE);
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json;charset=UTF-8");
            // Jetty closes a connection whose request it could not parse: say so, or the client reuses it
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            try {
                byte[] bytes = JSON.writeValueAsBytes(
                        error(message == null ? HttpStatus.getMessage(status) : message.toString(), Map.of()));
                response.write(true, ByteBuffer.wrap(bytes), callback);
            } catch (IOException e) {
                callback.failed(e);
            }
            return true;
        }
    }

    /** No valid token: pve answers 401 with no body. */
    private static final class Unauthorized extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unauthorized() {
            super(null, null, false, false);
        }
    }
}
