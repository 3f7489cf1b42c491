package org.tandembroker.core.vhost;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.VirtualHostConfig;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreRoleListener;
import org.tandembroker.core.store.StoredEntries;

/**
 * A virtual host's life cycle: opening and closing its store, and becoming ACTIVE (with recovery) or PASSIVE as
 * the store's role events and operators ask.
 *
 * <p><b>Threads.</b> Every change runs one at a time on the host's own "vhost-NAME" thread, whoever asked for it;
 * so do the steps of the background loading of recovered queue entries ({@link RecoveredEntryLoader}), between
 * them, so that a passivation or stop cancels the loading before it drops the queues. This class's fields are
 * owned by that thread ({@link OwningThread}, asserted); callers get futures and are never blocked on the store.
 */
final class VirtualHostLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(VirtualHostLifecycle.class);
    private static final long EXPIRY_SWEEP_MILLIS = 5_000;
    static final long ACTIVATION_RETRY_MILLIS = 2_000;

    private final VirtualHostConfig config;
    private final Supplier<MessageStore> storeSupplier;
    private final CurrentStore store;
    private final ServingStatus status;
    private final Topology topology;
    private final ClientAdmission admission;
    private final OperationalLog operationalLog;
    private final ScheduledExecutorService housekeeping;
    private final OwningThread lifecycleThread;
    private final ExecutorService lifecycle;
    private final CompletableFuture<VirtualHostState> firstRole = new CompletableFuture<>();
    private ScheduledFuture<?> expirySweep;
    /** The current activation's background loading; volatile for {@link #recoveryInProgress()}. */
    private volatile RecoveredEntryLoader recoveryLoader;
    /** Role events the store told (owned by the life-cycle thread): a retried activation runs only if none came. */
    private long roleEvents;

    VirtualHostLifecycle(VirtualHostConfig config, Supplier<MessageStore> storeSupplier, CurrentStore store,
                         ServingStatus status, Topology topology, ClientAdmission admission,
                         OperationalLog operationalLog, ScheduledExecutorService housekeeping,
                         OwningThread lifecycleThread) {
        this.config = config;
        this.storeSupplier = storeSupplier;
        this.store = store;
        this.status = status;
        this.topology = topology;
        this.admission = admission;
        this.operationalLog = operationalLog;
        this.housekeeping = housekeeping;
        this.lifecycleThread = lifecycleThread;
        this.lifecycle = Executors.newSingleThreadExecutor(
                NamedThreadFactory.daemonThread("vhost-" + config.name(), lifecycleThread::adopt));
    }

    private String name() {
        return config.name();
    }

    CompletableFuture<VirtualHostState> firstRoleDecided() {
        return firstRole;
    }

    void start() {
        operationalLog.log(LogCode.VHT_1001, name());
        openStore();
    }

    /** On the caller's thread at start; on the life-cycle thread after that. */
    private void openStore() {
        MessageStore newStore = storeSupplier.get();
        status.groupMember(newStore.replication().isPresent());
        store.open(newStore);
        newStore.start(new RoleListener(newStore));
    }

    CompletableFuture<Void> passivate(String reason) {
        return onLifecycleThread(() -> {
            if (status.isActive()) {
                deactivate(null, reason);
            }
            closeStore();
        });
    }

    CompletableFuture<Void> activate() {
        return onLifecycleThread(() -> {
            if (status.state() == VirtualHostState.STOPPED) {
                throw new BrokerException(ErrorKind.ILLEGAL_STATE, "virtual host '" + name() + "' is stopped");
            }
            if (store.get().isEmpty()) {
                openStore();
            }
        });
    }

    CompletableFuture<Void> stop() {
        return onLifecycleThread(() -> {
            if (status.isActive()) {
                deactivate(null, "broker shutting down");
            }
            status.stopped();
            closeStore();
            operationalLog.log(LogCode.VHT_1004, name());
        }).whenComplete((ok, failure) -> lifecycle.shutdown());
    }

    private void closeStore() {
        MessageStore current = store.take();
        if (current != null) {
            current.close();
        }
    }

    private CompletableFuture<Void> onLifecycleThread(Runnable work) {
        return CompletableFuture.runAsync(work, lifecycle);
    }

    /** The store's role events, forwarded to the life-cycle thread. */
    private final class RoleListener implements StoreRoleListener {
        private final MessageStore source;

        RoleListener(MessageStore source) {
            this.source = source;
        }

        @Override
        public CompletableFuture<Void> becameActive() {
            return onLifecycleThread(() -> {
                roleEvents++;
                if (!store.is(source) || status.state() != VirtualHostState.PASSIVE) {
                    return;
                }
                activateOn(source);
            });
        }

        @Override
        public CompletableFuture<Void> becamePassive(Optional<String> activeNodeClientAddress, String reason) {
            return onLifecycleThread(() -> {
                roleEvents++;
                if (!store.is(source)) {
                    return;
                }
                status.activeNodeIs(activeNodeClientAddress.orElse(null));
                if (status.isActive()) {
                    deactivate(status.activeNodeAddress(), reason);
                } else {
                    status.passive(reason);
                }
                firstRole.complete(VirtualHostState.PASSIVE);
            });
        }

        @Override
        public CompletableFuture<Void> failed(String reason) {
            return onLifecycleThread(() -> {
                if (!store.is(source)) {
                    return;
                }
                if (status.isActive()) {
                    deactivate(null, "store failed: " + reason);
                }
                status.failed(reason);
                firstRole.completeExceptionally(new BrokerException(ErrorKind.ILLEGAL_STATE,
                        "virtual host '" + name() + "': " + reason));
            });
        }
    }

    /**
     * Activates on {@code source}. A refusal by the store while activating — it is no longer active, or lost its
     * quorum, or its disk is full, while the configured queues were declared (a new master whose replicas went
     * before its first commits) — is not a failure of the broker: the host stays passive and tries again in
     * {@value #ACTIVATION_RETRY_MILLIS} ms unless the store told of a role change meanwhile (which decides then).
     * Anything else fails the activation (and start-up, on the first one).
     */
    private void activateOn(MessageStore source) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        try {
            recoverAndActivate(source);
            firstRole.complete(VirtualHostState.ACTIVE);
        } catch (RuntimeException e) {
            Optional<BrokerException> refusal = storeRefusal(e);
            if (refusal.isPresent()) {
                String reason = "activation interrupted: " + refusal.get().getMessage();
                LOG.warn("Virtual host '{}': {}; staying passive, trying again in {} ms unless the store's role "
                        + "changes", name(), reason, ACTIVATION_RETRY_MILLIS);
                clearState(reason);
                status.passive(reason);
                firstRole.complete(VirtualHostState.PASSIVE);
                long eventsAtRefusal = roleEvents;
                housekeeping.schedule(() -> onLifecycleThreadUnlessStopped(() -> {
                    if (roleEvents == eventsAtRefusal && store.is(source)
                            && status.state() == VirtualHostState.PASSIVE) {
                        activateOn(source);
                    }
                }), ACTIVATION_RETRY_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            String reason = "activation failed: " + e.getMessage();
            LOG.error("Virtual host '{}': {}", name(), reason);
            LOG.debug("Virtual host '{}': activation failed", name(), e);
            clearState(reason);
            status.failed(reason);
            firstRole.completeExceptionally(e);
            throw e;
        }
    }

    /**
     * Recovers and serves. Configuration records first, then the head of every durable queue
     * ({@link RecoveredEntryLoader#loadHeads()}); the host is ACTIVE from then on, whatever the queues' depth. When
     * a queue holds more, its entries load in the background (MST-1012 says so; MST-1005 and MST-1006 follow when
     * everything is loaded), its consumers take what is loaded, and what clients publish meanwhile joins each queue
     * behind its recovered entries. Otherwise MST-1005 and MST-1006 come before VHT-1002.
     */
    private void recoverAndActivate(MessageStore source) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        operationalLog.log(LogCode.MST_1004, name());
        ConfigurationRecovery configuration = new ConfigurationRecovery(topology, config.queues(), operationalLog);
        configuration.declareBuiltInExchanges();
        StoredEntries stored = source.recover(configuration);
        configuration.bind();
        configuration.mergeDuplicateQueues(source, stored);
        RecoveredEntryLoader loader = new RecoveredEntryLoader(name(), source, stored,
                configuration.durableQueues(), this::onLifecycleThreadUnlessStopped, housekeeping, operationalLog);
        recoveryLoader = loader;
        boolean loadedAll = loader.loadHeads();
        if (loadedAll) {
            loader.finish(Runnable::run); // its steps run on the store's reader thread while this one waits
            loader.done().join();
        } else {
            operationalLog.log(LogCode.MST_1012, loader.entriesLoaded(), loader.queuesLoading());
        }
        new ConfigurationDeclaration(config, topology, operationalLog).declareMissing(source, configuration.changedRecords());
        status.becameActive();
        expirySweep = housekeeping.scheduleWithFixedDelay(topology::expireEntries,
                EXPIRY_SWEEP_MILLIS, EXPIRY_SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        operationalLog.log(LogCode.VHT_1002, name());
        if (!loadedAll) {
            loader.loadRest();
        }
    }

    /**
     * The store's refusal behind {@code failure} (possibly wrapped by a future) when it says the store cannot write
     * now: not active, not enough replicas or disk (RESOURCE_LIMIT_EXCEEDED), or acknowledgements missing (IN_DOUBT).
     */
    private static Optional<BrokerException> storeRefusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BrokerException b && (b.kind() == ErrorKind.NOT_ACTIVE
                    || b.kind() == ErrorKind.RESOURCE_LIMIT_EXCEEDED || b.kind() == ErrorKind.IN_DOUBT)) {
                return Optional.of(b);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return Optional.empty();
    }

    /** A step of background loading; dropped when the host has stopped (the loading was cancelled before). */
    private void onLifecycleThreadUnlessStopped(Runnable step) {
        try {
            lifecycle.execute(step);
        } catch (RejectedExecutionException e) {
            // stopped: stop() cancelled the loading first
        }
    }

    /** Leaves ACTIVE: connections closed (with a redirect when known), in-memory state dropped, store untouched. */
    private void deactivate(String redirect, String reason) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        status.passive(reason);
        admission.closeAll(reason, redirect);
        clearState(reason);
        operationalLog.log(LogCode.MST_1007);
        operationalLog.log(LogCode.VHT_1003, name(), reason);
    }

    private void clearState(String reason) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        RecoveredEntryLoader loader = recoveryLoader;
        if (loader != null) {
            loader.cancel(); // before the queues shut down: nothing more is added to them or removed for them
            recoveryLoader = null;
        }
        if (expirySweep != null) {
            expirySweep.cancel(false);
            expirySweep = null;
        }
        admission.forgetAll();
        topology.clear(reason);
    }

    /**
     * Whether recovered queue entries are still loading in the background, or the messages no queue holds still
     * being removed (any thread).
     */
    boolean recoveryInProgress() {
        RecoveredEntryLoader loader = recoveryLoader;
        return loader != null && !loader.done().isDone();
    }
}
