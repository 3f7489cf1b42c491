package org.tandembroker.store.bdb;

import com.sleepycat.je.Durability;
import com.sleepycat.je.Environment;
import com.sleepycat.je.EnvironmentFailureException;
import com.sleepycat.je.EnvironmentLockedException;
import com.sleepycat.je.EnvironmentStats;
import com.sleepycat.je.StatsConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.exec.Uninterruptibly;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.store.HotBackup;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.RecoveryHandler;
import org.tandembroker.core.store.StoreContext;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoreStatus;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntries;
import org.tandembroker.core.store.StoredEntry;
import org.tandembroker.store.bdb.logfile.PrefilledLogFiles;
import org.tandembroker.store.bdb.commit.CoalescingCommitter;

/**
 * The standalone Berkeley DB JE store: one transactional JE environment per virtual host. Always active once
 * open. Commits go through a {@link CoalescingCommitter}: with {@code coalescingSync} a batch of commits shares one
 * fsync; a transaction that only removes entries or messages is committed with {@code NO_SYNC} and never waits
 * for an fsync.
 *
 * <p><b>Threads.</b>
 * <ul>
 *   <li>{@code bdb-lifecycle-<vhost>} owns opening and closing the environment and every call to the
 *       {@link StoreRoleListener} (whose returned futures it does not need to wait for); it writes {@link #environment}, {@link #databases} and {@link #committer}
 *       before publishing {@code state = OPEN} (volatile), and other threads read them only after seeing OPEN.</li>
 *   <li>{@code bdb-committer-<vhost>} applies commits, flushes, completes commit futures
 *       (see {@link CoalescingCommitter}).</li>
 *   <li>{@code bdb-reader-<vhost>} reads message content for {@link #loadContent} and the pages of recovered
 *       entries and message ids ({@link StoredEntries}), one read at a time, content first ({@link StoreReader}):
 *       a page (a few milliseconds) delays only the content reads that arrive while it runs.</li>
 *   <li>{@link #recover} runs on the caller's thread, as the contract asks; it reads configuration records
 *       only.</li>
 * </ul>
 * {@link #close()} waits until the environment is closed (so that the directory can be reopened at once),
 * except when called from one of the store's own threads, where it only starts the close.
 */
public final class BdbMessageStore implements MessageStore {
    public static final String TYPE = "bdb";
    public static final String ROLE = "STANDALONE";

    private static final Logger LOG = LoggerFactory.getLogger(BdbMessageStore.class);
    private static final Durability REMOVAL_DURABILITY =
            new Durability(Durability.SyncPolicy.NO_SYNC, Durability.SyncPolicy.NO_SYNC,
                    Durability.ReplicaAckPolicy.NONE);

    private enum State { NEW, STARTING, OPEN, FAILED, CLOSED }

    private final BdbStoreSettings settings;
    private final StoreContext context;
    private final String name;
    private final ExecutorService lifecycle;
    private final StoreReader reader;
    private final StoreHealth health;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final AtomicBoolean closeRequested = new AtomicBoolean();
    private final AtomicLong nextMessageId = new AtomicLong(1);
    private final OwningThread lifecycleOwner = new OwningThread("bdb-lifecycle");
    /** For close(), which must tell the lifecycle thread from others even before it exists (unlike the owner). */
    private volatile Thread lifecycleThread;
    private volatile Thread readerThread;
    private volatile String openFailure;
    private volatile StoreRoleListener listener;
    private volatile Environment environment;
    /** The store directory registered for prefilled log files while the environment is open (lifecycle thread). */
    private PrefilledLogFiles.Registration prefilledLogFiles;
    private volatile StoreDatabases databases;
    private volatile CoalescingCommitter<ChangeSet> committer;

    public BdbMessageStore(BdbStoreSettings settings, StoreContext context) {
        this.settings = settings;
        this.context = context;
        this.name = TYPE + " store of " + context.virtualHostName();
        String vhost = context.virtualHostName();
        this.lifecycle = Executors.newSingleThreadExecutor(NamedThreadFactory.daemonThread("bdb-lifecycle-" + vhost,
                thread -> {
                    lifecycleThread = thread;
                    lifecycleOwner.adopt(thread);
                }));
        this.reader = new StoreReader("bdb-reader-" + vhost, t -> readerThread = t);
        this.health = new StoreHealth(name, context.operationalLog(), this::environmentFailed);
    }

    @Override
    public void start(StoreRoleListener roleListener) {
        if (!state.compareAndSet(State.NEW, State.STARTING)) {
            throw new IllegalStateException(name + " can be started once, and not after close: " + state.get());
        }
        this.listener = roleListener;
        lifecycle.execute(this::openAndActivate);
    }

    private void openAndActivate() {
        assert lifecycleOwner.isCurrent() : lifecycleOwner.violation();
        try {
            open();
        } catch (Exception e) {
            openFailure = e instanceof EnvironmentLockedException
                    ? "store directory " + settings.storePath() + " is in use by another broker (JE's lock file "
                      + settings.storePath().resolve("je.lck") + " is held): stop it, or give this virtual host a "
                      + "storePath of its own"
                    : "cannot open the store at " + settings.storePath() + ": " + firstLine(e);
            state.compareAndSet(State.STARTING, State.FAILED);
            LOG.error("{}: {}", name, openFailure);
            LOG.debug("{}: opening the store failed", name, e);
            tellListener(() -> listener.failed(openFailure));
            return;
        }
        if (!state.compareAndSet(State.STARTING, State.OPEN)) {
            return; // closed meanwhile: close() runs next on this thread
        }
        context.operationalLog().log(LogCode.MST_1001, TYPE, context.virtualHostName(), settings.storePath());
        tellListener(() -> listener.becameActive());
    }

    private void open() throws IOException {
        Path path = settings.storePath();
        Files.createDirectories(path);
        if (Files.exists(path.resolve("je.properties"))) {
            LOG.warn("{}: ignoring {}: the store's JE parameters come only from <envConfig> in {}", name,
                    path.resolve("je.properties"), settings.sourceFile());
        }
        prefilledLogFiles = PrefilledLogFiles.register(path, settings.prefillLogFiles(),
                settings.environmentConfig());
        Environment env;
        try {
            env = new Environment(path.toFile(), prefilledLogFiles.adjusted(settings.environmentConfig()));
        } catch (RuntimeException e) {
            releasePrefilledLogFiles();
            throw e;
        }
        prefilledLogFiles.opened(env);
        StoreDatabases dbs;
        try {
            dbs = StoreDatabases.open(env);
        } catch (RuntimeException e) {
            closeQuietly(env);
            releasePrefilledLogFiles();
            throw e;
        }
        nextMessageId.accumulateAndGet(dbs.highestMessageId() + 1, Math::max);
        CoalescingCommitter<ChangeSet> commits = CoalescingCommitter.singleThread(
                "bdb-committer-" + context.virtualHostName(), this::apply, dbs::flushLog, health);
        commits.start();
        environment = env;
        databases = dbs;
        committer = commits;
    }

    private void apply(ChangeSet changes) {
        databases.apply(changes, changes.removalOnly() ? REMOVAL_DURABILITY : settings.commitDurability());
    }

    @Override
    public StoredEntries recover(RecoveryHandler handler) {
        requireOpen();
        StoreDatabases.RecoveryStart start;
        try {
            start = databases.recoverConfiguration(handler);
        } catch (EnvironmentFailureException e) {
            health.environmentFailed(e);
            throw new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": recovery failed: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e instanceof BrokerException) {
                throw e;
            }
            throw new BrokerException(ErrorKind.INTERNAL_ERROR, name + ": recovery failed: " + e.getMessage(), e);
        }
        long horizon = start.horizon();
        nextMessageId.accumulateAndGet(horizon + 1, Math::max);
        LOG.info("{}: recovered {} configuration records; messages and queue entries up to id {} are read in pages",
                name, start.configRecords(), horizon);
        return new StoredEntryPages(horizon, this::readRecoveryPage);
    }

    private <T> CompletableFuture<T> readRecoveryPage(String failure, Function<StoreDatabases, T> work) {
        return read(true, failure, work);
    }

    @Override
    public StoreTransaction newTransaction() {
        return new BdbTransaction(this::commit);
    }

    private CompletableFuture<Void> commit(ChangeSet changes) {
        if (state.get() != State.OPEN) {
            return CompletableFuture.failedFuture(notActive());
        }
        String failure = health.environmentFailure();
        if (failure != null) {
            return CompletableFuture.failedFuture(new BrokerException(ErrorKind.INTERNAL_ERROR, failure));
        }
        return committer.submit(changes, settings.coalescingSync() && !changes.removalOnly());
    }

    @Override
    public CompletableFuture<byte[]> loadContent(long messageId) {
        return loadContent(null, messageId);
    }

    @Override
    public CompletableFuture<byte[]> loadContent(UUID holder, long messageId) {
        return read(false, "cannot read message " + messageId, dbs -> dbs.readContent(holder, messageId)
                .orElseThrow(() -> new BrokerException(ErrorKind.NOT_FOUND,
                        name + ": message " + messageId + " is not in the store")));
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(long[] ids) {
        return readMessages(null, ids);
    }

    @Override
    public CompletableFuture<List<StoredEntry>> readMessages(UUID holder, long[] ids) {
        return read(false, "cannot read " + ids.length + " messages", dbs -> dbs.readMessages(holder, ids));
    }

    @Override
    public boolean readsMessagesById() {
        return true;
    }

    /**
     * Runs a read on the reader thread: content for deliveries first, recovery's pages ({@code background}) when no
     * content read waits.
     */
    private <T> CompletableFuture<T> read(boolean background, String failure, Function<StoreDatabases, T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (state.get() != State.OPEN) {
            result.completeExceptionally(notActive());
            return result;
        }
        try {
            Runnable read = () -> readNow(failure, work, result);
            if (background) {
                reader.executeInBackground(read);
            } else {
                reader.execute(read);
            }
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(notActive());
        }
        return result;
    }

    private <T> void readNow(String failure, Function<StoreDatabases, T> work, CompletableFuture<T> result) {
        if (state.get() != State.OPEN) {
            result.completeExceptionally(notActive());
            return;
        }
        try {
            result.complete(work.apply(databases));
        } catch (BrokerException e) {
            result.completeExceptionally(e);
        } catch (EnvironmentFailureException e) {
            health.environmentFailed(e);
            result.completeExceptionally(new BrokerException(ErrorKind.INTERNAL_ERROR,
                    name + ": " + failure + ": " + e.getMessage(), e));
        } catch (RuntimeException e) {
            result.completeExceptionally(new BrokerException(ErrorKind.INTERNAL_ERROR,
                    name + ": " + failure + ": " + e.getMessage(), e));
        }
    }

    @Override
    public long nextMessageId() {
        State current = state.get();
        if (current != State.OPEN && current != State.CLOSED) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, name + " is not open yet: ids would not be unique");
        }
        return nextMessageId.getAndIncrement();
    }

    @Override
    public StoreStatus status() {
        Path path = settings.storePath();
        return switch (state.get()) {
            case NEW, STARTING -> new StoreStatus(ROLE, false, "opening " + path);
            case FAILED -> new StoreStatus(ROLE, false, "failed to open " + path + ": " + openFailure);
            case CLOSED -> new StoreStatus("CLOSED", false, "closed " + path);
            case OPEN -> {
                String failure = health.environmentFailure();
                if (failure != null) {
                    yield new StoreStatus(ROLE, false, failure);
                }
                if (health.diskFull()) {
                    yield new StoreStatus(ROLE, false, "disk full at " + path
                            + ": commits fail until disk space is freed or maxDisk is raised");
                }
                yield new StoreStatus(ROLE, true, "open at " + path);
            }
        };
    }

    /** JE's disk figures for this store; empty unless open. A JE statistics call: not for hot paths. */
    public Optional<JeLogFigures> logFigures() {
        if (state.get() != State.OPEN) {
            return Optional.empty();
        }
        try {
            return Optional.of(JeLogFigures.of(environment.getStats(new StatsConfig())));
        } catch (RuntimeException e) {
            return Optional.empty(); // closed concurrently
        }
    }

    /**
     * The JE environment while open, for this module's tools (a hot backup runs JE's {@code DbBackup} on it); never
     * for the broker. It is closed when the store closes.
     */
    public Optional<Environment> environment() {
        return state.get() == State.OPEN ? Optional.ofNullable(environment) : Optional.empty();
    }

    /** Counters for metrics and tests; empty unless open. */
    public Optional<BdbStoreStats> stats() {
        if (state.get() != State.OPEN) {
            return Optional.empty();
        }
        try {
            EnvironmentStats jeStats = environment.getStats(new StatsConfig());
            return Optional.of(new BdbStoreStats(committer.stats(), jeStats.getNLogFSyncs(),
                    jeStats.getTotalLogSize(), jeStats.getAvailableLogSize()));
        } catch (RuntimeException e) {
            return Optional.empty(); // closed concurrently
        }
    }

    @Override
    public Optional<StoreFigureSource> figures() {
        return Optional.of(new JeStoreFigures(this::logFigures, () -> stats().map(BdbStoreStats::committer)));
    }

    @Override
    public Optional<HotBackup> hotBackup() {
        return Optional.of(new StandaloneStoreBackup(this));
    }

    @Override
    public void close() {
        if (!closeRequested.compareAndSet(false, true)) {
            return;
        }
        Thread current = Thread.currentThread();
        if (current == lifecycleThread) {
            closeNow();
            return;
        }
        Future<?> closing;
        try {
            closing = lifecycle.submit(this::closeNow);
        } catch (RejectedExecutionException e) {
            return;
        }
        CoalescingCommitter<ChangeSet> commits = committer;
        if (current == readerThread || (commits != null && commits.runsOn(current))) {
            return; // waiting here would wait for ourselves
        }
        try {
            Uninterruptibly.get(closing);
        } catch (ExecutionException e) {
            LOG.warn("{}: close failed", name, e.getCause());
        }
    }

    private void closeNow() {
        assert lifecycleOwner.isCurrent() : lifecycleOwner.violation();
        State previous = state.getAndSet(State.CLOSED);
        if (previous == State.CLOSED) {
            return;
        }
        CoalescingCommitter<ChangeSet> commits = committer;
        if (commits != null) {
            commits.close();
        }
        reader.shutdown();
        Uninterruptibly.awaitTermination(reader);
        StoreDatabases dbs = databases;
        if (dbs != null) {
            try {
                dbs.close();
            } catch (RuntimeException e) {
                LOG.warn("{}: closing the databases failed", name, e);
            }
        }
        Environment env = environment;
        if (env != null) {
            closeQuietly(env);
        }
        releasePrefilledLogFiles();
        lifecycle.shutdown();
        if (previous != State.NEW) {
            context.operationalLog().log(LogCode.MST_1003, name);
        }
    }

    private void environmentFailed(String reason) {
        try {
            lifecycle.execute(() -> {
                if (state.get() == State.OPEN) {
                    tellListener(() -> listener.becamePassive(Optional.empty(), reason));
                }
            });
        } catch (RejectedExecutionException e) {
            // closing anyway
        }
    }

    private void tellListener(Runnable call) {
        assert lifecycleOwner.isCurrent() : lifecycleOwner.violation();
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.error("{}: the store role listener failed", name, e);
        }
    }

    private void requireOpen() {
        if (state.get() != State.OPEN) {
            throw notActive();
        }
    }

    private BrokerException notActive() {
        State current = state.get();
        return new BrokerException(ErrorKind.NOT_ACTIVE, name + " is not open (" + current
                + (current == State.FAILED ? ": " + openFailure : "") + ")");
    }

    private void releasePrefilledLogFiles() {
        PrefilledLogFiles.Registration registration = prefilledLogFiles;
        prefilledLogFiles = null;
        if (registration != null) {
            registration.close();
        }
    }

    private void closeQuietly(Environment env) {
        try {
            env.close();
        } catch (RuntimeException e) {
            // e.g. DiskLimitException from the final checkpoint: JE closes the environment in other respects.
            LOG.warn("{}: closing the JE environment reported: {}", name, e.toString());
        }
    }

    /** The first line of an exception's message (JE appends its environment state and a long hint). */
    private static String firstLine(Exception e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
