package dev.vsm.cluster;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigSource;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.ConfigUnavailableException;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterStatus;
import dev.vsm.engine.cluster.ClusterStatus.LockHeld;
import dev.vsm.engine.cluster.ClusterStatus.NodeSeen;
import dev.vsm.json.JsonTree;
import dev.vsm.lock.FileLocks;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageLocks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Cluster} on Apache Curator. Every ZooKeeper or Curator failure becomes one
 * {@link StorageException} line; what a changing command does without quorum is refused with
 * {@code no quorum! ...} before anything is written.
 *
 * <p>vsm authenticates as digest user {@code vsm} with the secret of {@link SecretFile}, and
 * every znode it creates has the one ACL {@code digest:vsm:<hash>:cdrwa}: nobody else may read,
 * change, create under, delete or re-ACL it. On connecting it checks that its tree is still so
 * ({@link #checkTree}) and refuses a tree anyone else may change; ZooKeeper's {@code NoAuth} is
 * reported as what it is ({@link #notAuthorized}), never as {@code no quorum!}.
 */
final class ZooKeeperCluster implements Cluster {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperCluster.class);
    private static final Pattern PROCESS = Pattern.compile("pid-([0-9]+)-[0-9]+");

    private final ClusterSettings settings;
    private final Path cacheFile;
    private final Duration lockTimeout;
    private final boolean changing;
    private final Consumer<String> warn;
    private final String holder;
    private final Map<String, HeldMutex> mutexes = new ConcurrentHashMap<>();
    private CuratorFramework client;
    /** vsm's one ACL, set when the client is made (read by the lock and init threads alike). */
    private volatile List<ACL> acl;

    private String secret;
    private Boolean reachable;
    /** Why this process may not use the tree (a bad secret file, NoAuth, a tree others may change), once found. */
    private StorageException refusal;
    /** {@code cluster init} checks (and with --force repairs) the tree itself: no refusal on connecting. */
    private boolean initialising;
    /** Whether connecting registers this process under {@code nodes}: not for a dry run of init, which writes nothing. */
    private boolean registering = true;

    private boolean warnedCache;
    private volatile ConnectionState state;
    private volatile boolean lost;

    /** With pve's lock wait ({@link FileLocks#DEFAULT_TIMEOUT}). */
    ZooKeeperCluster(ClusterSettings settings, Path cacheFile, boolean changing, Consumer<String> warn) {
        this(settings, cacheFile, FileLocks.DEFAULT_TIMEOUT, changing, warn);
    }

    ZooKeeperCluster(
            ClusterSettings settings, Path cacheFile, Duration lockTimeout, boolean changing, Consumer<String> warn) {
        this.settings = requireNonNull(settings, "settings");
        this.cacheFile = requireNonNull(cacheFile, "cacheFile");
        this.lockTimeout = requireNonNull(lockTimeout, "lockTimeout");
        this.changing = changing;
        this.warn = requireNonNull(warn, "warn");
        this.holder = settings.node() + " pid " + ProcessHandle.current().pid();
    }

    @Override
    public ClusterSettings settings() {
        return settings;
    }

    private synchronized CuratorFramework client() {
        if (client == null) {
            if (secret == null) {
                secret = SecretFile.read(settings.secretFile());
            }
            // a list that may be asked whether it holds null (ZooKeeper.validateACL does): not List.of
            List<ACL> vsmOnly = Collections.singletonList(
                    new ACL(ZooDefs.Perms.ALL, new Id("digest", SecretFile.digestId(secret))));
            acl = vsmOnly;
            int waitMs = (int) settings.connectWait().toMillis();
            client = CuratorFrameworkFactory.builder()
                    .connectString(settings.zookeeper())
                    .authorization("digest", (SecretFile.USER + ":" + secret).getBytes(StandardCharsets.US_ASCII))
                    .aclProvider(new ACLProvider() {
                        @Override
                        public List<ACL> getDefaultAcl() {
                            return vsmOnly;
                        }

                        @Override
                        public List<ACL> getAclForPath(String path) {
                            return vsmOnly;
                        }
                    })
                    .sessionTimeoutMs((int) settings.sessionTimeout().toMillis())
                    .connectionTimeoutMs(waitMs)
                    .retryPolicy(new RetryUntilElapsed(waitMs, 100))
                    .defaultData(holder.getBytes(StandardCharsets.UTF_8))
                    .maxCloseWaitMs(1000)
                    .build();
            client.getConnectionStateListenable().addListener((c, newState) -> {
                state = newState;
                if (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST) {
                    lost = true;
                }
            });
            client.start();
        }
        return client;
    }

    /**
     * Whether there is a connection (waiting for it the first time) on which this process is
     * registered, its tree checked first ({@link #checkTree}).
     *
     * @throws StorageException (bad input) when the secret file is refused, ZooKeeper says NoAuth,
     *                          or the tree may be changed by others
     */
    private synchronized boolean connected() {
        if (refusal != null) {
            throw refusal;
        }
        if (reachable == null) {
            try {
                reachable = client().blockUntilConnected(
                                (int) settings.connectWait().toMillis(), TimeUnit.MILLISECONDS);
                if (reachable) {
                    checkTree(initialising);
                    if (registering) {
                        register();
                    }
                }
            } catch (StorageException e) {
                refusal = e;
                throw e;
            } catch (KeeperException.NoAuthException e) {
                refusal = notAuthorized(e);
                throw refusal;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reachable = false;
            } catch (Exception e) {
                LOG.debug("registering node {} failed", settings.node(), e);
                reachable = false;
            }
        }
        return reachable && !lost;
    }

    /**
     * Refuses a tree others may change: the ACLs of the root, {@code config}, {@code locks} and
     * {@code nodes} (those that exist) must give vsm's identity every permission and no one else
     * any beyond read. vsm makes everything under them itself, with its own ACL, so that nobody
     * else can have added a child since; {@code cluster init --force} repairs the whole tree.
     *
     * @param initialising only whether vsm may use the root at all: {@code cluster init} checks
     *                     (and with --force repairs) the rest itself
     */
    private void checkTree(boolean initialising) throws Exception {
        List<String> paths = initialising
                ? List.of(settings.root())
                : List.of(settings.root(), settings.configPath(), locksPath(), nodesPath());
        for (String path : paths) {
            try {
                List<ACL> znodeAcl = client().getACL().forPath(path);
                if (!grantsVsm(znodeAcl)) {
                    // made with another secret, or someone shut vsm out: NoAuth at the next step
                    throw notAuthorized(path);
                }
                Optional<String> others = othersMayChange(znodeAcl);
                if (others.isPresent() && !initialising) {
                    throw openTree(path, others.get());
                }
            } catch (KeeperException.NoNodeException e) {
                // not made yet: vsm makes it with its own ACL
            }
        }
    }

    /** Whether {@code znodeAcl} gives vsm's identity (or anyone) every permission. */
    private boolean grantsVsm(List<ACL> znodeAcl) {
        Id vsm = acl.get(0).getId();
        Id anyone = new Id("world", "anyone");
        return znodeAcl.stream()
                .anyMatch(entry -> entry.getPerms() == ZooDefs.Perms.ALL
                        && (entry.getId().equals(vsm) || entry.getId().equals(anyone)));
    }

    /** The first ACL entry of {@code znodeAcl} that lets someone other than vsm change the znode, as {@code scheme:id:perms}. */
    private Optional<String> othersMayChange(List<ACL> znodeAcl) {
        Id vsm = acl.get(0).getId();
        for (ACL entry : znodeAcl) {
            if (!entry.getId().equals(vsm) && (entry.getPerms() & ~ZooDefs.Perms.READ) != 0) {
                return Optional.of(
                        entry.getId().getScheme() + ":" + entry.getId().getId() + ":" + perms(entry.getPerms()));
            }
        }
        return Optional.empty();
    }

    private static String perms(int perms) {
        StringBuilder s = new StringBuilder();
        s.append((perms & ZooDefs.Perms.CREATE) != 0 ? "c" : "");
        s.append((perms & ZooDefs.Perms.DELETE) != 0 ? "d" : "");
        s.append((perms & ZooDefs.Perms.READ) != 0 ? "r" : "");
        s.append((perms & ZooDefs.Perms.WRITE) != 0 ? "w" : "");
        s.append((perms & ZooDefs.Perms.ADMIN) != 0 ? "a" : "");
        return s.toString();
    }

    private StorageException openTree(String path, String entry) {
        return new ConfigUnavailableException(
                StorageException.Kind.BAD_INPUT,
                "ZooKeeper's vsm tree is not vsm's alone: " + path + " has the ACL " + entry
                        + ", so others may change it; nothing used. Run 'vsm cluster init --force' on a node with"
                        + " the cluster secret to make it vsm's alone, then check 'vsm cluster export'");
    }

    /** ZooKeeper's NoAuth: the secret is not the one the tree was made with, or someone shut vsm out. */
    private StorageException notAuthorized(KeeperException e) {
        return notAuthorized(e.getPath() == null ? settings.root() : e.getPath());
    }

    private StorageException notAuthorized(String path) {
        return new ConfigUnavailableException(
                StorageException.Kind.BAD_INPUT,
                "not authorized to ZooKeeper's vsm tree (" + path + "): check cluster.secret ("
                        + settings.secretFile()
                        + ") is the file 'vsm cluster init' made; a tree whose ACL shuts vsm out must be removed"
                        + " by ZooKeeper's superuser");
    }

    /** {@code <root>/nodes/<node>} with the time, and this process's ephemeral child. */
    private void register() throws Exception {
        String nodePath = nodesPath() + "/" + settings.node();
        byte[] seen = ("{\"last-seen\": \"" + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        client.create().orSetData().creatingParentsIfNeeded().forPath(nodePath, seen);
        client.create()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(
                        nodePath + "/pid-" + ProcessHandle.current().pid() + "-",
                        holder.getBytes(StandardCharsets.UTF_8));
    }

    /** For a changing step: a live connection, or {@code no quorum!}. */
    private void requireQuorum() {
        if (lost) {
            throw connectionLost();
        }
        if (!connected()) {
            throw noQuorum(": nothing changed");
        }
    }

    private StorageException noQuorum(String tail) {
        return new ConfigUnavailableException(
                "no quorum! (ZooKeeper " + settings.zookeeper() + " not reachable)" + tail);
    }

    private StorageException connectionLost() {
        return new ConfigUnavailableException("no quorum! (the connection to ZooKeeper " + settings.zookeeper()
                + " was lost while the command ran): stopped before the next change");
    }

    /** Makes the server this client talks to catch up with the leader, so that the next read is current. */
    private void sync(String path) throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger rc = new AtomicInteger();
        client().sync()
                .inBackground((c, event) -> {
                    rc.set(event.getResultCode());
                    done.countDown();
                })
                .forPath(path);
        if (!done.await(settings.connectWait().toMillis(), TimeUnit.MILLISECONDS)) {
            throw new KeeperException.ConnectionLossException();
        }
        KeeperException.Code code = KeeperException.Code.get(rc.get());
        if (code != KeeperException.Code.OK && code != KeeperException.Code.NONODE) {
            throw KeeperException.create(code, path);
        }
    }

    private String nodesPath() {
        return settings.root() + "/nodes";
    }

    private String locksPath() {
        return settings.root() + "/locks";
    }

    private StorageException notInitialised() {
        return new ConfigUnavailableException(
                StorageException.Kind.BAD_INPUT,
                "cluster configuration not found at " + settings.configPath()
                        + ": seed it with 'vsm cluster init --from FILE'");
    }

    // ---- the configuration ----

    @Override
    public ConfigSource configSource() {
        return new ConfigSource() {
            @Override
            public String label() {
                return "zookeeper:" + settings.configPath();
            }

            @Override
            public Optional<Stored> read() {
                return Optional.of(readConfig());
            }

            @Override
            public void write(Stored expected, byte[] bytes) {
                writeConfig(expected, bytes);
            }

            @Override
            public <T> T locked(Supplier<T> work) {
                return withLock(ConfigStore.LOCK, lockTimeout, work);
            }

            @Override
            public List<String> describeWrite(Stored expected) {
                return List.of("+ zookeeper set " + settings.configPath() + " --version " + expected.version());
            }
        };
    }

    /** {@code <root>/config} after a sync, cached; without quorum, the cache (read-only commands only). */
    private ConfigSource.Stored readConfig() {
        if (connected()) {
            try {
                sync(settings.configPath());
                Stat stat = new Stat();
                byte[] bytes = client().getData().storingStatIn(stat).forPath(settings.configPath());
                cache(bytes);
                return new ConfigSource.Stored(bytes, stat.getVersion());
            } catch (KeeperException.NoNodeException e) {
                throw notInitialised();
            } catch (KeeperException.NoAuthException e) {
                throw notAuthorized(e);
            } catch (Exception e) {
                LOG.debug("reading {} failed", settings.configPath(), e);
            }
        }
        if (changing) {
            throw lost ? connectionLost() : noQuorum(": nothing changed");
        }
        return new ConfigSource.Stored(cached(), -1);
    }

    private void writeConfig(ConfigSource.Stored expected, byte[] bytes) {
        requireQuorum();
        try {
            client().setData().withVersion((int) expected.version()).forPath(settings.configPath(), bytes);
        } catch (KeeperException.BadVersionException e) {
            throw StorageException.failed(
                    "configuration changed on another node meanwhile; nothing written, try again");
        } catch (KeeperException.NoNodeException e) {
            throw notInitialised();
        } catch (KeeperException.NoAuthException e) {
            throw notAuthorized(e);
        } catch (Exception e) {
            LOG.debug("writing {} failed", settings.configPath(), e);
            throw new ConfigUnavailableException("no quorum! (ZooKeeper " + settings.zookeeper() + ": " + oneLine(e)
                    + "): the configuration may not have been written, check with 'vsm cluster export'");
        }
        cache(bytes);
    }

    /** Keeps {@code bytes} in the cache file (atomically: a temporary file renamed over it). */
    private void cache(byte[] bytes) {
        try {
            Files.createDirectories(cacheFile.getParent());
            Path tmp = Files.createTempFile(cacheFile.getParent(), ".cluster-config", ".tmp");
            try {
                Files.write(tmp, bytes);
                Files.move(tmp, cacheFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            LOG.warn("cannot cache the cluster configuration in {}: {}", cacheFile, e.toString());
        }
    }

    /**
     * The cached configuration, with the warning; or {@code no quorum! ... and no cached configuration}.
     * The cache lives in the lock directory and is read by its rule ({@link FileLocks#readOwnFile}):
     * a file there that is not this user's own is refused, never used.
     */
    private synchronized byte[] cached() {
        Optional<byte[]> bytes;
        try {
            bytes = FileLocks.readOwnFile(cacheFile);
        } catch (StorageException e) {
            throw new ConfigUnavailableException("no quorum! (ZooKeeper " + settings.zookeeper()
                    + " not reachable) and the cached configuration cannot be used: " + e.getMessage());
        }
        if (bytes.isEmpty()) {
            throw noQuorum(" and no cached configuration");
        }
        if (!warnedCache) {
            warnedCache = true;
            String at;
            try {
                at = Files.getLastModifiedTime(cacheFile, LinkOption.NOFOLLOW_LINKS)
                        .toInstant()
                        .truncatedTo(ChronoUnit.SECONDS)
                        .toString();
            } catch (IOException e) {
                at = "an unknown time";
            }
            warn.accept("no quorum: using the cluster configuration cached at " + at);
        }
        return bytes.get();
    }

    @Override
    public void init(byte[] yaml, boolean force, boolean dryRun, Consumer<String> changes) {
        if (yaml == null && !force) {
            throw new IllegalArgumentException("without a configuration to store, init only repairs (force)");
        }
        synchronized (this) {
            initialising = true;
            registering = registering && !dryRun;
        }
        if (!Files.exists(settings.secretFile(), LinkOption.NOFOLLOW_LINKS)) {
            changes.accept("+ create " + settings.secretFile() + " (mode 0600, a new random secret)");
            if (dryRun) {
                synchronized (this) {
                    if (client == null) {
                        secret = SecretFile.generate(); // what the real run would create, kept in memory
                    }
                }
            } else {
                SecretFile.create(settings.secretFile());
            }
        }
        requireQuorum();
        Supplier<Void> work = () -> {
            try {
                sync(settings.root());
                Stat stat = client().checkExists().forPath(settings.configPath());
                List<String[]> open = new ArrayList<>();
                List<String> planted = new ArrayList<>();
                walk(settings.root(), open, planted);
                if (!force && !open.isEmpty()) {
                    throw openTree(open.get(0)[0], open.get(0)[1]);
                }
                if (stat != null && !force) {
                    throw StorageException.badInput(
                            "cluster configuration already exists at %s (version %d): use --force to replace it",
                            settings.configPath(), stat.getVersion());
                }
                if (yaml == null && stat == null) {
                    throw notInitialised();
                }
                String vsmAcl = "digest:" + acl.get(0).getId().getId() + ":cdrwa";
                planted.forEach(path -> changes.accept("+ zookeeper delete " + path));
                for (int i = open.size() - 1; i >= 0; i--) {
                    changes.accept("+ zookeeper setAcl " + open.get(i)[0] + " " + vsmAcl);
                }
                if (yaml != null) {
                    changes.accept(
                            stat == null
                                    ? "+ zookeeper create " + settings.configPath()
                                    : "+ zookeeper set " + settings.configPath() + " --version " + stat.getVersion());
                }
                if (dryRun) {
                    return null;
                }
                if (lost) {
                    throw connectionLost();
                }
                for (String path : planted) {
                    client().delete().forPath(path);
                }
                // children before their parents: a znode is vsm's alone only once all below it are
                for (int i = open.size() - 1; i >= 0; i--) {
                    client().setACL().withACL(acl).forPath(open.get(i)[0]);
                }
                if (yaml == null) {
                    return null;
                }
                if (stat == null) {
                    client().create().creatingParentsIfNeeded().forPath(settings.configPath(), yaml);
                } else {
                    client().setData().withVersion(stat.getVersion()).forPath(settings.configPath(), yaml);
                }
            } catch (StorageException e) {
                throw e;
            } catch (KeeperException.NoAuthException e) {
                throw notAuthorized(e);
            } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException e) {
                throw StorageException.failed(
                        "configuration changed on another node meanwhile; nothing written, try again");
            } catch (Exception e) {
                LOG.debug("storing {} failed", settings.configPath(), e);
                throw new ConfigUnavailableException(
                        "no quorum! (ZooKeeper " + settings.zookeeper() + ": " + oneLine(e) + "): nothing changed");
            }
            cache(yaml);
            return null;
        };
        if (dryRun) {
            work.get();
        } else {
            withLock(ConfigStore.LOCK, lockTimeout, work);
        }
    }

    /**
     * Walks the tree under {@code path} (parents first): the znodes others may change, each with
     * the first such ACL entry, into {@code open}; into {@code planted}, the lock znodes that are
     * not ephemeral (vsm's locks always are: someone else made them, to hold a lock for ever).
     */
    private void walk(String path, List<String[]> open, List<String> planted) throws Exception {
        Stat stat = new Stat();
        List<ACL> znodeAcl;
        try {
            znodeAcl = client().getACL().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return;
        }
        if (path.startsWith(locksPath() + "/")
                && path.substring(locksPath().length() + 1).contains("/")
                && stat.getEphemeralOwner() == 0) {
            planted.add(path);
            return;
        }
        othersMayChange(znodeAcl).ifPresent(entry -> open.add(new String[] {path, entry}));
        for (String child : children(path)) {
            walk(path + "/" + child, open, planted);
        }
    }

    @Override
    public byte[] export() {
        return readConfig().bytes();
    }

    // ---- locks ----

    @Override
    public StorageLocks storageLocks(StorageLocks local, Predicate<String> shared) {
        requireNonNull(local, "local");
        requireNonNull(shared, "shared");
        return new StorageLocks() {
            @Override
            public <T> T withStorageLock(String storageId, Supplier<T> work) {
                if (!shared.test(storageId)) {
                    return local.withStorageLock(storageId, work);
                }
                return withLock("storage-" + storageId, lockTimeout, work);
            }

            @Override
            public boolean tryExclusive(String name, Runnable work) {
                if (name.length() > 100) {
                    throw new IllegalArgumentException("claim name longer than 100 characters: " + name);
                }
                return tryLock("claim-" + name, work);
            }

            @Override
            public void checkHeld() {
                local.checkHeld();
                checkHeldLocks();
            }
        };
    }

    private HeldMutex mutex(String name) {
        return mutexes.computeIfAbsent(locksPath() + "/" + name, path -> new HeldMutex(client(), path));
    }

    /** An {@link InterProcessMutex} that tells the znode by which this thread holds it. */
    private static final class HeldMutex extends InterProcessMutex {
        private final String path;

        HeldMutex(CuratorFramework client, String path) {
            super(client, path);
            this.path = path;
        }

        /** The lock's znode while this thread holds it (null otherwise). */
        String heldNode() {
            return isOwnedByCurrentThread() ? getLockPath() : null;
        }
    }

    /**
     * Fails unless every cluster lock this thread holds is still its own: the connection was not
     * lost or suspended since, and each lock znode still exists in this client's session (one
     * round trip each). A session that expired while this process stalled fails here, before the
     * next change, even if the client has since reconnected with a new session.
     */
    private void checkHeldLocks() {
        for (HeldMutex mutex : mutexes.values()) {
            String node = mutex.heldNode();
            if (node == null) {
                continue;
            }
            if (lost) {
                throw lockLost(mutex.path, "the connection to ZooKeeper was lost meanwhile");
            }
            Stat stat;
            long session;
            try {
                session = client().getZookeeperClient().getZooKeeper().getSessionId();
                stat = client().checkExists().forPath(node);
            } catch (Exception e) {
                LOG.debug("checking cluster lock {} failed", node, e);
                throw lockLost(mutex.path, "ZooKeeper did not answer");
            }
            if (stat == null || stat.getEphemeralOwner() != session) {
                throw lockLost(mutex.path, "its ZooKeeper session expired meanwhile");
            }
        }
    }

    private StorageException lockLost(String lock, String why) {
        return new ConfigUnavailableException(
                "no quorum! lost the cluster lock '" + lock + "' (" + why + "): stopped before the next change");
    }

    /** Runs {@code work} holding the cluster lock {@code <root>/locks/<name>}; re-entrant within a thread. */
    <T> T withLock(String name, Duration timeout, Supplier<T> work) {
        requireQuorum();
        HeldMutex mutex = mutex(name);
        if (!acquire(mutex, timeout.toMillis())) {
            throw StorageException.failed("can't lock '%s/%s' - got timeout", locksPath(), name);
        }
        try {
            if (lost) {
                throw connectionLost();
            }
            return work.get();
        } finally {
            release(mutex);
        }
    }

    private boolean tryLock(String name, Runnable work) {
        requireQuorum();
        HeldMutex mutex = mutex(name);
        if (!acquire(mutex, 0)) {
            return false;
        }
        try {
            if (lost) {
                throw connectionLost();
            }
            work.run();
            return true;
        } finally {
            release(mutex);
        }
    }

    private boolean acquire(InterProcessMutex mutex, long millis) {
        try {
            boolean got = mutex.acquire(millis, TimeUnit.MILLISECONDS);
            if (!got && lost) {
                throw connectionLost();
            }
            return got;
        } catch (StorageException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw StorageException.failed("interrupted while waiting for a cluster lock");
        } catch (KeeperException.NoAuthException e) {
            throw notAuthorized(e);
        } catch (Exception e) {
            LOG.debug("acquiring a cluster lock failed", e);
            throw lost ? connectionLost() : noQuorum(": nothing changed");
        }
    }

    private static void release(InterProcessMutex mutex) {
        try {
            mutex.release();
        } catch (Exception e) {
            // the connection is gone: the lock goes with the session
            LOG.debug("releasing a cluster lock failed", e);
        }
    }

    // ---- status ----

    @Override
    public ClusterStatus status() {
        if (!connected()) {
            byte[] cached = cached();
            return new ClusterStatus(
                    settings.zookeeper(), sessionState(), settings.node(), null, sha1(cached), List.of(), List.of());
        }
        try {
            sync(settings.root());
            Stat stat = new Stat();
            Integer version = null;
            String digest = null;
            try {
                byte[] bytes = client().getData().storingStatIn(stat).forPath(settings.configPath());
                cache(bytes);
                version = stat.getVersion();
                digest = sha1(bytes);
            } catch (KeeperException.NoNodeException e) {
                // not initialised: shown as such
            }
            return new ClusterStatus(
                    settings.zookeeper(), sessionState(), settings.node(), version, digest, nodes(), locks());
        } catch (KeeperException.NoAuthException e) {
            throw notAuthorized(e);
        } catch (Exception e) {
            throw StorageException.failed(
                    e, "cannot read the cluster status from ZooKeeper %s: %s", settings.zookeeper(), oneLine(e));
        }
    }

    private synchronized String sessionState() {
        ConnectionState s = state;
        if (s == null) {
            // the listener hears of the first connection a little after blockUntilConnected does
            return Boolean.TRUE.equals(reachable) ? "CONNECTED" : "not connected";
        }
        return s == ConnectionState.RECONNECTED ? "CONNECTED" : s.name();
    }

    private List<NodeSeen> nodes() throws Exception {
        List<NodeSeen> nodes = new ArrayList<>();
        for (String name : children(nodesPath())) {
            String path = nodesPath() + "/" + name;
            String lastSeen = null;
            try {
                JsonTree lastSeenField = JsonTree.parse(
                                new String(client().getData().forPath(path), StandardCharsets.UTF_8))
                        .path("last-seen");
                lastSeen = lastSeenField.isString() ? lastSeenField.text(null) : null;
            } catch (IOException e) {
                // not JSON: shown as unknown
            } catch (KeeperException.NoNodeException e) {
                continue;
            }
            List<Long> pids = new ArrayList<>();
            for (String child : children(path)) {
                Matcher m = PROCESS.matcher(child);
                if (m.matches()) {
                    pids.add(Long.parseLong(m.group(1)));
                }
            }
            pids.sort(Comparator.naturalOrder());
            nodes.add(new NodeSeen(name, lastSeen, pids));
        }
        return nodes;
    }

    private List<LockHeld> locks() throws Exception {
        List<LockHeld> locks = new ArrayList<>();
        for (String name : children(locksPath())) {
            String path = locksPath() + "/" + name;
            Optional<String> first = children(path).stream().min(Comparator.comparing(ZooKeeperCluster::sequence));
            if (first.isEmpty()) {
                continue;
            }
            try {
                locks.add(new LockHeld(
                        path,
                        new String(client().getData().forPath(path + "/" + first.get()), StandardCharsets.UTF_8)));
            } catch (KeeperException.NoNodeException e) {
                // released meanwhile
            }
        }
        return locks;
    }

    /** The sequence number ZooKeeper appended to a lock znode's name (its last 10 characters). */
    private static String sequence(String name) {
        return name.length() > 10 ? name.substring(name.length() - 10) : name;
    }

    private List<String> children(String path) throws Exception {
        try {
            List<String> children = new ArrayList<>(client().getChildren().forPath(path));
            children.sort(Comparator.naturalOrder());
            return children;
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    static String sha1(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.strip().replace('\n', ' ');
    }

    /**
     * For tests: drops this client's connection without closing its session, as a killed process
     * does; the server expires the session (and deletes its ephemeral znodes) after the timeout.
     */
    void expireSession() throws Exception {
        client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            try {
                client.close();
            } catch (RuntimeException e) {
                LOG.debug("closing the ZooKeeper client failed", e);
            }
            client = null;
        }
    }
}
