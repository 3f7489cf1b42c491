package org.tandembroker.store.bdbha;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.NamedThreadFactory;
import org.tandembroker.core.exec.OwningThread;
import org.tandembroker.core.exec.Uninterruptibly;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.store.StoreRoleListener;

/**
 * Decides whether this node serves: every role transition of the replicated store is made here, from
 * {@link RoleEvent}s, and the virtual host hears the outcome through its {@link StoreRoleListener}. JE and the
 * master session are reached only through {@link NodeEnvironment}, so tests drive the machine without JE.
 *
 * <p>A node serves while JE has made it master, its master session is open and no heartbeat since the session
 * opened has found the quorum lost. A new master serves at once (recovery and client reconnection then overlap the
 * replicas' syncup); a first heartbeat that fails passivates it until a later one is acknowledged.
 *
 * <p><b>Threads.</b> One thread, {@code ha-<vhost>}, handles every event and owns every field; fields other
 * threads read are volatile. JE's listener, the heartbeat and the committers only post events; operators'
 * changes run on this thread too ({@link #call}). The thread blocks while JE opens or restores, and while the
 * virtual host passivates (until it did, {@value #PASSIVATION_WAIT_SECONDS} s, or the store closes).
 *
 * <p><b>Transitions</b> (state, event &rarr; state: actions). Events of an environment, generation or session
 * that is no longer current are dropped, and once the store closes every event but Designate and Close.
 * <pre>
 * OPENING/RESTARTING Open(n)             -&gt; same        open; retryable failure: Open(n+1) later; disk full:
 *                                                       Open(1) later, without end (MST-1008 once); the master
 *                                                       reached is designated too and this node is a member
 *                                                       restarting: give up this node's designation (HA-1002),
 *                                                       Open(n+1) now; else -&gt; FAILED
 * any, env open      StateChanged(s)     -&gt; s           HA-1001 when the state or the master changed, then:
 *                      s = MASTER                       open the session, activate the host; refused for want of
 *                                                       a quorum: HA-1005 "none yet" (once), passivate,
 *                                                       RetryMaster in 2 s; refused, restart: restart; refused,
 *                                                       not master: passivate; any other failure: fail
 *                      s = REPLICA                      passivate with the master's client address when known,
 *                                                       else passivate and LookUpMasterAddress
 *                      s = UNKNOWN                      passivate
 *                      s = DETACHED      -&gt; RESTARTING  restart
 * MASTER, no session RetryMaster         -&gt; MASTER      as StateChanged(MASTER)
 * REPLICA            LookUpMasterAddress -&gt; REPLICA     answered: passivate with the redirect; else again in 1 s
 * MASTER, session    QuorumConfirmed     -&gt; MASTER      after a logged loss: HA-1005 regained; activate if passive
 * MASTER, session    QuorumLost          -&gt; MASTER      first of a loss: HA-1005 lost; passivate if serving
 * any, env open      RestartRequired     -&gt; RESTARTING  restart
 * any                Designate(d)        -&gt; same        remember d (every open uses it), apply it to the open
 *                                                       environment, warn when JE ignores it, HA-1002
 * any                Close               -&gt; CLOSED      passivate (the closing host is not told; the session hands
 *                                                       over), close the environment
 *
 * restart: HA-1003 (and HA-1004 for a rollback), passivate, close the environment, -&gt; RESTARTING, Open(1)
 * fail:    -&gt; FAILED (reported DETACHED, with the reason in the status), tell the host it failed, close the
 *          environment
 * passivate: stop serving, tell the host (and wait for it when a session was open), close the session
 * </pre>
 *
 * @param <S> what the node writes with while master ({@link MasterSession} in production)
 */
final class NodeRoleMachine<S> {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRoleMachine.class);

    static final long MASTER_RETRY_DELAY_MILLIS = 2000;
    static final int LOOKUP_ATTEMPTS = 10;
    static final long LOOKUP_RETRY_DELAY_MILLIS = 1000;
    /** How long the machine waits for the virtual host to passivate before closing the session regardless. */
    static final long PASSIVATION_WAIT_SECONDS = 120;

    /** Who this node is, and what its texts need to know. */
    record Settings(String storeName, String virtualHostName, String nodeName, String groupName,
                    boolean designatedPrimary, boolean replicaAckNone) {
    }

    /** What the heartbeats of the current master session have shown. */
    private enum Quorum { UNCONFIRMED, CONFIRMED, LOST }

    private final Settings settings;
    private final NodeEnvironment<S> environment;
    private final OperationalLog operationalLog;
    private final OwningThread owner;
    private final ScheduledThreadPoolExecutor executor;
    /** Completed when the store closes: the machine stops waiting for a virtual host that is closing it. */
    private final CompletableFuture<Void> closeSignal = new CompletableFuture<>();
    private volatile Thread roleThread;
    private volatile StoreRoleListener listener;
    private volatile boolean closing;

    // Written on the role thread, read anywhere.
    private volatile NodeRole role = NodeRole.OPENING;
    private volatile String masterName;
    private volatile String masterClientAddress;
    private volatile boolean designatedPrimary;
    private volatile String failure;
    private volatile S session;
    /** The virtual host was told it is active. */
    private volatile boolean serving;

    // Role thread only.
    /** Changes whenever an environment opens or closes: JE's events and restarts name the one they concern. */
    private long environmentNumber;
    private boolean environmentOpen;
    /** Changes with every environment and every state event, so that scheduled work of the past is dropped. */
    private long generation;
    private long sessionNumber;
    private Quorum quorum = Quorum.UNCONFIRMED;
    /** An HA-1005 "lost" line awaits its "regained" (across sessions too). */
    private boolean quorumLossLogged;
    private boolean noQuorumLogged;
    private boolean warnedDesignationIgnored;

    NodeRoleMachine(Settings settings, NodeEnvironment<S> environment, OperationalLog operationalLog) {
        this.settings = settings;
        this.environment = environment;
        this.operationalLog = operationalLog;
        this.designatedPrimary = settings.designatedPrimary();
        this.owner = new OwningThread("ha-" + settings.virtualHostName());
        this.executor = new ScheduledThreadPoolExecutor(1, NamedThreadFactory.daemonThread(
                "ha-" + settings.virtualHostName(), thread -> {
                    owner.adopt(thread);
                    roleThread = thread;
                }));
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    /** Opens the environment; the role follows through {@code roleListener}. */
    void start(StoreRoleListener roleListener) {
        this.listener = roleListener;
        post(new RoleEvent.Open(1));
    }

    /** Hands an event to the role thread; from any thread. */
    void post(RoleEvent event) {
        try {
            executor.execute(() -> handle(event));
        } catch (RejectedExecutionException e) {
            rejected(event);
        }
    }

    /** Sets the designated-primary flag; completes once applied (see {@link RoleEvent.Designate}). */
    CompletableFuture<Void> designate(boolean designated) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        post(new RoleEvent.Designate(designated, done));
        return done;
    }

    /** Runs {@code work} on the role thread (an operator's change to the group); its failure fails the result. */
    <T> CompletableFuture<T> call(Callable<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    result.complete(work.call());
                } catch (BrokerException e) {
                    result.completeExceptionally(e);
                } catch (Exception e) {
                    result.completeExceptionally(unexpected(e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closed());
        }
        return result;
    }

    /**
     * The store is closing: from now on the virtual host is not told and not waited for. From any thread, before
     * {@link #close()} when that must run on another thread.
     */
    void closing() {
        closing = true;
        closeSignal.complete(null);
    }

    /** Closes the session and the environment and stops the role thread; waits unless called on it. Idempotent. */
    void close() {
        closing();
        Future<?> closed;
        try {
            closed = executor.submit(() -> handle(new RoleEvent.Close()));
        } catch (RejectedExecutionException e) {
            return;
        }
        executor.shutdown();
        if (runsOn(Thread.currentThread())) {
            return;
        }
        try {
            Uninterruptibly.get(closed);
        } catch (ExecutionException e) {
            LOG.warn("Closing the replicated environment failed", e.getCause());
        }
    }

    // ---- the transitions, on the role thread ----

    private void handle(RoleEvent event) {
        assert owner.isCurrent() : owner.violation();
        try {
            if (event instanceof RoleEvent.Designate designate) {
                designate(designate.designated(), designate.done());
            } else if (event instanceof RoleEvent.Close) {
                closeNow();
            } else if (closing) {
                return;
            } else if (event instanceof RoleEvent.Open open) {
                open(open.attempt());
            } else if (event instanceof RoleEvent.StateChanged changed) {
                if (environmentOpen && changed.environment() == environmentNumber) {
                    stateChanged(changed.state(), changed.masterName());
                }
            } else if (event instanceof RoleEvent.RetryMaster retry) {
                if (environmentOpen && retry.generation() == generation) {
                    becomeMaster();
                }
            } else if (event instanceof RoleEvent.LookUpMasterAddress lookUp) {
                lookUpMasterAddress(lookUp.generation(), lookUp.masterName(), lookUp.attempt());
            } else if (event instanceof RoleEvent.QuorumConfirmed confirmed) {
                if (session != null && confirmed.session() == sessionNumber) {
                    quorumConfirmed();
                }
            } else if (event instanceof RoleEvent.QuorumLost lost) {
                if (session != null && lost.session() == sessionNumber) {
                    quorumLost(lost.reason());
                }
            } else if (event instanceof RoleEvent.RestartRequired restart) {
                if (environmentOpen && restart.environment() == environmentNumber) {
                    restart(restart.reason());
                }
            }
        } catch (RuntimeException e) {
            LOG.error("Node {}: unexpected failure on the role thread", settings.nodeName(), e);
        }
    }

    private void open(int attempt) {
        long opening = environmentNumber + 1;
        NodeEnvironment.OpenOutcome outcome = environment.open(attempt, designatedPrimary,
                (state, master) -> post(new RoleEvent.StateChanged(opening, state, master)));
        if (outcome instanceof NodeEnvironment.OpenOutcome.Opened) {
            environmentNumber = opening;
            environmentOpen = true;
            generation++;
            failure = null;
        } else if (outcome instanceof NodeEnvironment.OpenOutcome.Retry retry) {
            schedule(new RoleEvent.Open(attempt + 1), retry.delayMillis());
        } else if (outcome instanceof NodeEnvironment.OpenOutcome.WaitForSpace wait) {
            schedule(new RoleEvent.Open(1), wait.delayMillis());
        } else if (outcome instanceof NodeEnvironment.OpenOutcome.Failed failed) {
            fail(failed.reason());
        } else if (outcome instanceof NodeEnvironment.OpenOutcome.MasterAlsoDesignated conflict) {
            yieldDesignation(conflict, attempt);
        }
    }

    /**
     * This node opened designated primary and reached a master that is designated too (the figure 1.3 restart:
     * node-b was designated while this node was down; or figure 1.6's healed partition: node-b was designated while
     * this node was master alone, and this node, told of the newer master, left the group to join it). JE raises
     * the conflict only in the master's handshake with this node, so the master is alive and reachable: joining it
     * undesignated cannot make a second master, while keeping the designation could (it lets a node of a pair
     * become master alone). So a member that restarts or rejoins gives its designation up until its broker restarts
     * (HA-1002) and opens again as a plain replica; the group keeps exactly one designated node, the master. What
     * this node committed that the master never received is then JE's rollback to decide (HA-1004, or a stop with
     * the DbTruncateLog command). A new node (an empty store) configured designated is a set-up mistake, and stops
     * as the spec says ("both cannot be designated at the point of contact").
     */
    private void yieldDesignation(NodeEnvironment.OpenOutcome.MasterAlsoDesignated conflict, int attempt) {
        if (!designatedPrimary || !conflict.rejoining() || attempt >= ReplicatedEnvironmentFacade.OPEN_ATTEMPTS) {
            fail(OperatorMessages.conflictingDesignation(settings.nodeName()));
            return;
        }
        designatedPrimary = false;
        operationalLog.log(LogCode.HA_1002, settings.nodeName(),
                OperatorMessages.designationYielded(conflict.master().orElse("the current master")));
        open(attempt + 1);
    }

    private void stateChanged(NodeRole state, Optional<String> master) {
        generation++;
        noQuorumLogged = false;
        String newMaster = state.knowsMaster() ? master.orElse(null) : null;
        if (state != role || !Objects.equals(newMaster, masterName)) {
            operationalLog.log(LogCode.HA_1001, settings.virtualHostName(), settings.nodeName(),
                    state.name() + (state == NodeRole.REPLICA ? " (master " + newMaster + ")" : ""));
        }
        role = state;
        if (!Objects.equals(newMaster, masterName)) {
            masterClientAddress = null;
        }
        masterName = newMaster;
        switch (state) {
            case MASTER -> becomeMaster();
            case REPLICA -> {
                Optional<String> known = Optional.ofNullable(masterClientAddress);
                passivate(known, "replica of master " + newMaster);
                if (known.isEmpty()) {
                    lookUpMasterAddress(generation, newMaster, 1);
                }
            }
            case UNKNOWN -> passivate(Optional.empty(), OperatorMessages.noMasterKnown(settings.nodeName()));
            case DETACHED -> restart("node " + settings.nodeName() + " left the group"
                    + environment.invalidation().map(invalidation -> ": " + invalidation.cause()).orElse(""));
            default -> throw new IllegalArgumentException("not a state of JE: " + state);
        }
    }

    private void becomeMaster() {
        if (session != null) {
            return;
        }
        warnIfDesignationIgnored();
        long number = ++sessionNumber;
        long opening = System.nanoTime();
        NodeEnvironment.SessionOutcome<S> outcome = environment.openSession(reports(environmentNumber, number));
        if (outcome instanceof NodeEnvironment.SessionOutcome.Opened<S> opened) {
            LOG.info("Node {}: opened the store as master in {} ms", settings.nodeName(),
                    (System.nanoTime() - opening) / 1_000_000);
            session = opened.session();
            quorum = Quorum.UNCONFIRMED;
            if (!closing && listener != null && !serving) {
                serving = true;
                tell(() -> listener.becameActive());
            }
        } else if (outcome instanceof NodeEnvironment.SessionOutcome.Refused<S> refused) {
            switch (refused.action()) {
                case QUORUM_LOST -> {
                    // e.g. a new master whose replicas (or arbiter) have not connected yet: log once, keep trying
                    if (!noQuorumLogged) {
                        noQuorumLogged = true;
                        operationalLog.log(LogCode.HA_1005, settings.nodeName(),
                                OperatorMessages.noQuorumYet(refused.reason()));
                    }
                    passivate(Optional.empty(), "no quorum yet");
                    schedule(new RoleEvent.RetryMaster(generation), MASTER_RETRY_DELAY_MILLIS);
                }
                case RESTART -> restart(refused.reason());
                case NONE -> passivate(Optional.empty(), refused.reason());
            }
        } else if (outcome instanceof NodeEnvironment.SessionOutcome.Failed<S> failed) {
            fail("cannot open the store's databases as master: " + failed.reason());
        }
    }

    private void lookUpMasterAddress(long lookupGeneration, String master, int attempt) {
        if (lookupGeneration != generation) {
            return;
        }
        Optional<String> address = environment.clientAddressOf(master);
        if (address.isPresent()) {
            masterClientAddress = address.get();
            passivate(address, "replica of master " + master + " (clients: " + address.get() + ")");
        } else if (attempt < LOOKUP_ATTEMPTS) {
            schedule(new RoleEvent.LookUpMasterAddress(generation, master, attempt + 1), LOOKUP_RETRY_DELAY_MILLIS);
        } else {
            LOG.info("Node {}: master {} did not tell its client address; clients are refused without a redirect",
                    settings.nodeName(), master);
        }
    }

    private void quorumConfirmed() {
        if (quorum == Quorum.CONFIRMED) {
            return;
        }
        quorum = Quorum.CONFIRMED;
        if (quorumLossLogged) {
            quorumLossLogged = false;
            operationalLog.log(LogCode.HA_1005, settings.nodeName(), OperatorMessages.quorumRegained());
        }
        if (!serving) {
            serving = true;
            tell(() -> listener.becameActive());
        }
    }

    private void quorumLost(String reason) {
        if (quorum == Quorum.LOST) {
            return;
        }
        quorum = Quorum.LOST;
        quorumLossLogged = true;
        operationalLog.log(LogCode.HA_1005, settings.nodeName(), OperatorMessages.quorumLost(reason));
        if (serving) {
            serving = false;
            awaitPassivation(tell(() -> listener.becamePassive(Optional.empty(), "quorum lost: " + reason)));
        }
    }

    /** JE requires it: the virtual host passivates first (all transactions end), then close and open again. */
    private void restart(String reason) {
        generation++;
        Optional<NodeEnvironment.Invalidation> invalidation = environment.invalidation();
        operationalLog.log(LogCode.HA_1003, settings.nodeName(), reason);
        invalidation.filter(cause -> cause.rolledBackFrom().isPresent()).ifPresent(rollback ->
                operationalLog.log(LogCode.HA_1004, settings.nodeName(), OperatorMessages.rollbackDiscarded(
                        rollback.rolledBackFrom().getAsLong(), settings.replicaAckNone())));
        passivate(Optional.empty(), reason);
        closeEnvironment();
        role = NodeRole.RESTARTING;
        open(1);
    }

    /** Stops for good: no environment, failed, with {@code reason} in the status and told to the virtual host. */
    private void fail(String reason) {
        generation++;
        failure = reason;
        role = NodeRole.FAILED;
        // One line for the operator; the store's status repeats it.
        LOG.error("Node {} of group {} stopped: {}", settings.nodeName(), settings.groupName(), reason);
        boolean wasMaster = session != null;
        serving = false;
        if (!closing && listener != null) {
            CompletableFuture<Void> told = tell(() -> listener.failed(reason));
            if (wasMaster) {
                awaitPassivation(told);
            }
        }
        closeSession();
        closeEnvironment();
    }

    private void closeNow() {
        generation++;
        passivate(Optional.empty(), "closing");
        closeEnvironment();
        role = NodeRole.CLOSED;
    }

    private void designate(boolean designated, CompletableFuture<Void> done) {
        try {
            designatedPrimary = designated;
            environment.applyDesignation(designated);
            if (designated) {
                warnedDesignationIgnored = false;
                warnIfDesignationIgnored();
            }
            operationalLog.log(LogCode.HA_1002, settings.nodeName(), OperatorMessages.designation(designated));
            done.complete(null);
        } catch (BrokerException e) {
            done.completeExceptionally(e);
        } catch (RuntimeException e) {
            done.completeExceptionally(unexpected(e));
        }
    }

    /**
     * Not serving: tell the virtual host (and, when a session was open, wait until every transaction has ended,
     * so that no JE handle closes under one), then close the session. The closing store's host is not told.
     */
    private void passivate(Optional<String> address, String reason) {
        boolean wasMaster = session != null;
        serving = false;
        if (!closing && listener != null) {
            CompletableFuture<Void> passivated = tell(() -> listener.becamePassive(address, reason));
            if (wasMaster) {
                awaitPassivation(passivated);
            }
        }
        closeSession();
    }

    private void closeSession() {
        S current = session;
        if (current == null) {
            return;
        }
        session = null;
        try {
            environment.closeSession(current, closing, quorum == Quorum.LOST);
        } catch (RuntimeException e) {
            LOG.warn("{}: closing the master session reported: {}", settings.storeName(),
                    ReplicationFailures.firstLine(e));
        }
    }

    private void closeEnvironment() {
        environmentOpen = false;
        environmentNumber++;
        masterName = null;
        environment.close();
    }

    private void warnIfDesignationIgnored() {
        if (!designatedPrimary || warnedDesignationIgnored) {
            return;
        }
        int electable = environment.electableNodes().orElse(0);
        if (electable > 2) {
            warnedDesignationIgnored = true;
            LOG.warn("Node {}: designatedPrimary is ignored: group {} has {} electable nodes and elects its master "
                    + "by majority (it only applies to two-node groups)", settings.nodeName(),
                    settings.groupName(), electable);
        }
    }

    private void awaitPassivation(CompletableFuture<Void> passivated) {
        try {
            // The virtual host may be the one closing this store, on the thread that would complete the future.
            CompletableFuture.anyOf(passivated, closeSignal).get(PASSIVATION_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            LOG.warn("{}: the virtual host did not passivate within {} s; closing the store's handles anyway",
                    settings.storeName(), PASSIVATION_WAIT_SECONDS);
        } catch (ExecutionException e) {
            LOG.warn("{}: passivating the virtual host failed: {}", settings.storeName(),
                    String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> tell(Supplier<CompletableFuture<Void>> call) {
        try {
            CompletableFuture<Void> result = call.get();
            return result == null ? CompletableFuture.completedFuture(null) : result;
        } catch (RuntimeException e) {
            LOG.error("{}: the store role listener failed", settings.storeName(), e);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** What a master session reports, as events naming the environment and session they concern. */
    private SessionReports reports(long sessionEnvironment, long number) {
        return new SessionReports() {
            @Override
            public void quorumConfirmed() {
                post(new RoleEvent.QuorumConfirmed(number));
            }

            @Override
            public void quorumLost(String reason) {
                post(new RoleEvent.QuorumLost(number, reason));
            }

            @Override
            public void restartRequired(String reason) {
                post(new RoleEvent.RestartRequired(sessionEnvironment, reason));
            }
        };
    }

    private void schedule(RoleEvent event, long delayMillis) {
        try {
            executor.schedule(() -> handle(event), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            rejected(event);
        }
    }

    private void rejected(RoleEvent event) {
        // Closed: nothing to do any more, but an operator's designation hears so.
        if (event instanceof RoleEvent.Designate designate) {
            designate.done().completeExceptionally(closed());
        }
    }

    private BrokerException closed() {
        return new BrokerException(ErrorKind.NOT_ACTIVE, "node " + settings.nodeName() + " is closed");
    }

    private BrokerException unexpected(Exception e) {
        return new BrokerException(ErrorKind.ILLEGAL_STATE, "node " + settings.nodeName() + ": "
                + ReplicationFailures.firstLine(e), e);
    }

    // ---- what the store, management and status read (any thread) ----

    NodeRole role() {
        return role;
    }

    Optional<String> masterName() {
        return Optional.ofNullable(masterName);
    }

    Optional<String> masterClientAddress() {
        return Optional.ofNullable(masterClientAddress);
    }

    /** The designated-primary flag last set (configured, then by operators). */
    boolean designatedPrimary() {
        return designatedPrimary;
    }

    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** The master session while one is open (serving or not); null otherwise. */
    S session() {
        return session;
    }

    /** True while the virtual host was told it is active. */
    boolean serving() {
        return serving;
    }

    OwningThread owningThread() {
        return owner;
    }

    /** True when {@code thread} is the role thread. */
    boolean runsOn(Thread thread) {
        return thread == roleThread;
    }
}
