package org.tandembroker.core.vhost;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.OwningThread;

/**
 * Whether the virtual host serves clients on this node and, when it does not, why and which node does: the one
 * answer that admission, addressing and publishing all check. Written only on the host's life-cycle thread
 * (asserted); read by any thread, hence volatile. Observers ({@link #onChange}) are told on that thread after
 * every change: readiness reporting, and admission holding a connection while the group elects.
 *
 * <p>Only a member of a replication group tells a refused client to try another node: a standalone host has no
 * other node, and a failed store says what failed.
 */
final class ServingStatus {
    private final String hostName;
    private final OwningThread lifecycleThread;
    private volatile VirtualHostState state = VirtualHostState.PASSIVE;
    private volatile String activeNodeAddress;
    private volatile String passiveReason = "starting";
    private volatile String failure;
    private volatile boolean groupMember;
    private final List<Runnable> observers = new CopyOnWriteArrayList<>();

    ServingStatus(String hostName, OwningThread lifecycleThread) {
        this.hostName = hostName;
        this.lifecycleThread = lifecycleThread;
    }

    /**
     * True while a client that arrives now is best told later: passive, not failed, not stopped, and no other node
     * known to serve (an election, a new master activating, a broker starting).
     */
    boolean undecided() {
        return state == VirtualHostState.PASSIVE && activeNodeAddress == null && failure == null;
    }

    VirtualHostState state() {
        return state;
    }

    boolean isActive() {
        return state == VirtualHostState.ACTIVE;
    }

    /** The client address of the node that serves this host, when known. */
    String activeNodeAddress() {
        return activeNodeAddress;
    }

    /** Whether the store is one node of a replication group (another node may serve); set as each store opens. */
    void groupMember(boolean member) {
        groupMember = member;
    }

    /** Why the store failed, while it has. */
    String failure() {
        return failure;
    }

    /** Why this node does not serve now (the last reason given), or "serving". */
    String reason() {
        return state == VirtualHostState.ACTIVE ? "serving" : failure != null ? failure : passiveReason;
    }

    /** Runs {@code observer} on the life-cycle thread after every change of state. */
    void onChange(Runnable observer) {
        observers.add(observer);
    }

    private void changed() {
        for (Runnable observer : observers) {
            observer.run();
        }
    }

    /** This node serves from now on. */
    void becameActive() {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        activeNodeAddress = null;
        failure = null;
        state = VirtualHostState.ACTIVE;
        changed();
    }

    /** The store cannot serve on this node: clients are told {@code reason}, and no other node is suggested. */
    void failed(String reason) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        activeNodeAddress = null;
        failure = reason;
        state = VirtualHostState.PASSIVE;
        passiveReason = reason;
        changed();
    }

    /** Another node (at {@code address}, null when unknown) serves; this one does not. */
    void activeNodeIs(String address) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        activeNodeAddress = address;
        if (address != null) {
            changed();
        }
    }

    /** This node does not serve, for {@code reason}. */
    void passive(String reason) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        state = VirtualHostState.PASSIVE;
        passiveReason = reason;
        failure = null;
        changed();
    }

    void stopped() {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        state = VirtualHostState.STOPPED;
        changed();
    }

    /** The answer to a client while not active: why, and where to go instead. */
    Admission.Refused refusal() {
        String redirect = activeNodeAddress;
        String failed = failure;
        if (failed != null && state != VirtualHostState.STOPPED) {
            return new Admission.Refused(ErrorKind.NOT_ACTIVE, "virtual host '" + hostName
                    + "' cannot serve: its store failed (" + failed + ")", null);
        }
        String elsewhere = redirect != null ? "; the active node serves clients at " + redirect
                : groupMember ? "; try another node" : "";
        String text = "virtual host '" + hostName + "' is not active on this node (" + state + ": " + passiveReason
                + ")" + elsewhere;
        return new Admission.Refused(ErrorKind.NOT_ACTIVE, text, redirect);
    }

    /** Throws NOT_ACTIVE with {@link #refusal()}'s text unless active. */
    void requireActive() {
        if (state != VirtualHostState.ACTIVE) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, refusal().description());
        }
    }
}
