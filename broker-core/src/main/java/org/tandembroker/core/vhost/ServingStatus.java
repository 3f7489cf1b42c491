package org.tandembroker.core.vhost;

import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.exec.OwningThread;

/**
 * Whether the virtual host serves clients on this node and, when it does not, why and which node does: the one
 * answer that admission, addressing and publishing all check. Written only on the host's life-cycle thread
 * (asserted); read by any thread, hence volatile. Whoever waits for a decisive answer (admission holding a
 * connection while the group elects) hears through {@link #whenDecided} each time this node starts serving, learns
 * which node serves instead, or stops.
 */
final class ServingStatus {
    private final String hostName;
    private final OwningThread lifecycleThread;
    private volatile VirtualHostState state = VirtualHostState.PASSIVE;
    private volatile String activeNodeAddress;
    private volatile String passiveReason = "starting";
    private volatile Runnable decided = () -> { };

    ServingStatus(String hostName, OwningThread lifecycleThread) {
        this.hostName = hostName;
        this.lifecycleThread = lifecycleThread;
    }

    /** Called on the life-cycle thread after each decisive change; set once, before clients arrive. */
    void whenDecided(Runnable listener) {
        this.decided = listener;
    }

    /**
     * True while a client that arrives now is best told later: passive, not stopped, and no other node known to
     * serve (an election, a new master activating, a broker starting).
     */
    boolean undecided() {
        return state == VirtualHostState.PASSIVE && activeNodeAddress == null;
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

    /** This node serves from now on. */
    void becameActive() {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        activeNodeAddress = null;
        state = VirtualHostState.ACTIVE;
        decided.run();
    }

    /** Another node (at {@code address}, null when unknown) serves; this one does not. */
    void activeNodeIs(String address) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        activeNodeAddress = address;
        if (address != null) {
            decided.run();
        }
    }

    /** This node does not serve, for {@code reason}. */
    void passive(String reason) {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        state = VirtualHostState.PASSIVE;
        passiveReason = reason;
    }

    void stopped() {
        assert lifecycleThread.isCurrent() : lifecycleThread.violation();
        state = VirtualHostState.STOPPED;
        decided.run();
    }

    /** The answer to a client while not active: why, and where to go instead. */
    Admission.Refused refusal() {
        String redirect = activeNodeAddress;
        String text = "virtual host '" + hostName + "' is not active on this node (" + state + ": " + passiveReason
                + ")" + (redirect != null ? "; the active node serves clients at " + redirect : "; try another node");
        return new Admission.Refused(ErrorKind.NOT_ACTIVE, text, redirect);
    }

    /** Throws NOT_ACTIVE with {@link #refusal()}'s text unless active. */
    void requireActive() {
        if (state != VirtualHostState.ACTIVE) {
            throw new BrokerException(ErrorKind.NOT_ACTIVE, refusal().description());
        }
    }
}
