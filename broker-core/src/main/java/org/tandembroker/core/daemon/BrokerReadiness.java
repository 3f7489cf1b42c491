package org.tandembroker.core.daemon;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.vhost.BrokerVirtualHost;
import org.tandembroker.core.vhost.VirtualHostStanding;

/**
 * Whether the node is ready: each virtual host serving (standalone or master) or a replica in its group. Says
 * {@code BRK-1004 : Ready} when the node becomes ready and {@code BRK-1008 : Not ready} (with each host that is not,
 * and why) when it is not, once per change.
 *
 * <p><b>Threads.</b> Evaluated on the virtual hosts' life-cycle threads after each change of their serving state,
 * and by the broker's starting thread; {@link #evaluate} is synchronized (a rare event, never on a delivery path).
 * {@link #isReady()} is read by any thread.
 */
final class BrokerReadiness {
    private final List<BrokerVirtualHost> hosts;
    private final OperationalLog operationalLog;
    private final CompletableFuture<Void> firstReady = new CompletableFuture<>();
    private volatile boolean ready;
    /** Whether this object has said anything yet: the first evaluation after start-up always speaks. */
    private boolean announced;
    private boolean watching;

    BrokerReadiness(List<BrokerVirtualHost> hosts, OperationalLog operationalLog) {
        this.hosts = List.copyOf(hosts);
        this.operationalLog = operationalLog;
    }

    /** Starts saying so; called once the listeners are bound. */
    void watch() {
        synchronized (this) {
            watching = true;
        }
        for (BrokerVirtualHost host : hosts) {
            host.onStandingChange(this::evaluate);
        }
        evaluate();
    }

    synchronized void evaluate() {
        if (!watching) {
            return;
        }
        List<BrokerVirtualHost> notReady = hosts.stream().filter(h -> !h.standing().ready()).toList();
        boolean nowReady = notReady.isEmpty();
        if (announced && nowReady == ready) {
            return;
        }
        announced = true;
        ready = nowReady;
        if (nowReady) {
            operationalLog.log(LogCode.BRK_1004);
            firstReady.complete(null);
        } else if (hosts.stream().noneMatch(h -> h.standing() == VirtualHostStanding.STOPPED)) {
            operationalLog.log(LogCode.BRK_1008, notReady.stream()
                    .map(h -> "virtual host '" + h.name() + "' is " + h.standing() + " (" + h.standingReason() + ")")
                    .collect(Collectors.joining("; ")));
        }
    }

    boolean isReady() {
        return ready;
    }

    /** Completes the first time the node is ready. */
    CompletableFuture<Void> firstReady() {
        return firstReady;
    }
}
