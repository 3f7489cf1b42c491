package org.tandembroker.amqp;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transport.AmqpError;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tandembroker.core.BrokerException;
import org.tandembroker.core.ErrorKind;
import org.tandembroker.core.config.ConnectionLimits;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.ClientAccess;
import org.tandembroker.core.security.SecurityStatistics;
import org.tandembroker.core.vhost.Admission;
import org.tandembroker.core.vhost.ClientConnection;
import org.tandembroker.core.vhost.ConnectionRegistration;
import org.tandembroker.core.vhost.VirtualHost;

/**
 * One client connection as AMQP sees it: the open handshake (virtual host lookup, connection limit, admission),
 * its sessions and links, its transactions, and how it ends. It is also the {@link ClientConnection} the core
 * knows, so the core can close it (for instance when this node stops serving the virtual host).
 *
 * <p>Thread: the channel's event loop owns every field; {@link #closeByBroker} and {@link #describe} may be called
 * from any thread ({@code user} is volatile for the latter).
 */
final class AmqpConnection implements ProtonEventListener, ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(AmqpConnection.class);
    static final String CONTAINER_ID = "tandem";
    /** The shortest idle timeout a client may ask of the broker (heartbeats at half of it); 0 (none) is fine. */
    static final int MIN_PEER_IDLE_TIMEOUT_MILLIS = 100;
    private static final Symbol ANONYMOUS_RELAY = Symbol.valueOf("ANONYMOUS-RELAY");
    private static final Symbol CONNECTION_ESTABLISHMENT_FAILED = Symbol.valueOf("amqp:connection-establishment-failed");

    private final FrontEndResources resources;
    private final ConnectionExecutor executor;
    private final Connection protonConnection;
    private final String remoteAddress;
    private final boolean withinConnectionLimit;
    private final Runnable onOpened;
    private final BooleanSupplier writable;
    private final ConnectionTransactions transactions = new ConnectionTransactions();
    private final Map<Link, AmqpLink> links = new HashMap<>();
    private final MessageMetadataDecoder metadataDecoder;
    private static final AtomicLong CONNECTIONS = new AtomicLong();
    private final String identity = "connection-" + CONNECTIONS.incrementAndGet();
    private final RedeliveryHeader redeliveryHeader;

    private volatile String user;
    private ClientAccess access = ClientAccess.UNRESTRICTED;
    private VirtualHost virtualHost;
    private ConnectionRegistration registration;
    private String closeReason;
    private boolean ended;

    AmqpConnection(FrontEndResources resources, ConnectionExecutor executor, Connection protonConnection,
                   String remoteAddress, boolean withinConnectionLimit, Runnable onOpened, BooleanSupplier writable) {
        this.resources = resources;
        this.executor = executor;
        this.protonConnection = protonConnection;
        this.remoteAddress = remoteAddress;
        this.withinConnectionLimit = withinConnectionLimit;
        this.onOpened = onOpened;
        this.writable = writable;
        MessageSections sections = new MessageSections();
        this.metadataDecoder = new MessageMetadataDecoder(sections);
        this.redeliveryHeader = new RedeliveryHeader(sections);
    }

    void authenticated(String authenticatedUser) {
        this.user = authenticatedUser;
        this.access = resources.accessControl().forClient(authenticatedUser, describe());
    }

    /** What this connection's user may do (its permissions). */
    ClientAccess access() {
        return access;
    }

    // ---- what links use

    VirtualHost virtualHost() {
        return virtualHost;
    }

    ConnectionExecutor executor() {
        return executor;
    }

    ConnectionLimits limits() {
        return resources.limits();
    }

    /**
     * Whether the socket takes more output now (Netty's writability: the bytes queued for the socket are below
     * the channel's high water mark). Links pull no more deliveries from the core while it is false.
     */
    boolean writable() {
        return writable.getAsBoolean();
    }

    /** The socket takes output again: every link may resume pulling deliveries. */
    void onWritable() {
        for (AmqpLink link : List.copyOf(links.values())) {
            link.onWritable();
        }
    }

    ConnectionTransactions transactions() {
        return transactions;
    }

    MessageMetadataDecoder metadataDecoder() {
        return metadataDecoder;
    }

    RedeliveryHeader redeliveryHeader() {
        return redeliveryHeader;
    }

    /** This connection among all of this broker's, for no-local: which messages it published. */
    String identity() {
        return identity;
    }

    String remoteContainerId() {
        String container = protonConnection.getRemoteContainer();
        return container == null ? "" : container;
    }

    /** Whether the client's open was answered with ours (the connection is past SASL and admitted). */
    boolean opened() {
        return virtualHost != null;
    }

    /** The core said this node no longer serves the virtual host: close so that failover clients move on. */
    void closeBecauseNodeInactive(Throwable failure) {
        close(ErrorConditions.of(failure), "virtual host not active: " + BrokerException.from(failure).getMessage());
    }

    // ---- ClientConnection

    @Override
    public String describe() {
        String who = user;
        return remoteAddress + " (" + (who == null ? "not authenticated" : who) + ")";
    }

    @Override
    public void closeByBroker(String reason, String redirectAddress) {
        executor.execute(() -> {
            ErrorCondition condition = ErrorConditions.connectionForced(reason);
            if (redirectAddress != null && virtualHost != null) {
                try {
                    condition = ErrorConditions.redirect(reason, redirectAddress, virtualHost.name());
                } catch (IllegalArgumentException e) {
                    LOG.warn("Ignoring redirect for {}: {}", describe(), e.getMessage());
                }
            }
            close(condition, "closed by broker: " + reason);
        });
    }

    // ---- Proton events

    @Override
    public void onConnectionRemoteOpen(Connection connection) {
        if (protonConnection.getLocalState() == EndpointState.CLOSED) {
            // already closed by us (a bad frame that followed the open in the same read): opening now would
            // re-open the connection and the close frame would never be sent
            return;
        }
        protonConnection.setContainer(CONTAINER_ID);
        if (user == null) {
            refuse(ErrorConditions.condition(AmqpError.UNAUTHORIZED_ACCESS, "not authenticated"), "not authenticated");
            return;
        }
        int peerIdleTimeout = connection.getTransport().getRemoteIdleTimeout();
        if (peerIdleTimeout > 0 && peerIdleTimeout < MIN_PEER_IDLE_TIMEOUT_MILLIS) {
            // AMQP 1.0 section 2.4.5: a peer need not support arbitrarily short idle timeouts and closes with an error.
            // Honouring one of a few milliseconds would have the broker write a heartbeat every few milliseconds.
            String text = "idle timeout " + peerIdleTimeout + " ms is shorter than this broker supports (at least "
                    + MIN_PEER_IDLE_TIMEOUT_MILLIS + " ms, or 0 for none)";
            refuse(ErrorConditions.of(ErrorKind.RESOURCE_LIMIT_EXCEEDED, text), text);
            return;
        }
        String requested = connection.getRemoteHostname();
        Optional<VirtualHost> found = resources.virtualHosts().find(requested);
        if (found.isEmpty()) {
            String text = "virtual host '" + requested + "' does not exist on this broker";
            resources.statistics().connectionRefused(SecurityStatistics.RefusalReason.UNKNOWN_VIRTUAL_HOST);
            refuse(ErrorConditions.condition(AmqpError.NOT_FOUND, text), text);
            return;
        }
        VirtualHost host = found.get();
        if (!withinConnectionLimit) {
            String text = "too many connections: this broker accepts at most " + limits().maxConnections();
            resources.statistics().connectionRefused(SecurityStatistics.RefusalReason.CONNECTION_LIMIT);
            refuse(ErrorConditions.of(ErrorKind.RESOURCE_LIMIT_EXCEEDED, text), text);
            return;
        }
        CompletableFuture<Admission> answer = host.admitWhenDecided(this);
        if (answer.isDone()) {
            answer.whenComplete((admission, failure) -> admissionDecided(host, admission, failure));
            return;
        }
        answer.whenComplete((admission, failure) -> {
            boolean queued = executor.execute(() -> admissionDecided(host, admission, failure));
            if (!queued && admission instanceof Admission.Admitted admitted) {
                admitted.registration().deregister(); // the front end is shut down
            }
        });
    }

    /**
     * The virtual host's answer to the open, possibly after it held the connection during a failover
     * ({@link VirtualHost#admitWhenDecided}); on the event loop.
     */
    private void admissionDecided(VirtualHost host, Admission admission, Throwable failure) {
        if (ended || protonConnection.getLocalState() != EndpointState.UNINITIALIZED) {
            if (admission instanceof Admission.Admitted admitted) {
                admitted.registration().deregister(); // the client left while it waited
            }
            return;
        }
        if (failure != null) {
            refuse(ErrorConditions.of(failure), "admission failed: " + BrokerException.from(failure).getMessage());
            return;
        }
        if (admission instanceof Admission.Admitted admitted) {
            registration = admitted.registration();
            virtualHost = host;
            protonConnection.setOfferedCapabilities(new Symbol[]{ANONYMOUS_RELAY, DeliveryTime.DELAYED_DELIVERY,
                    TerminusCapabilities.SHARED_SUBSCRIPTIONS});
            protonConnection.open();
            resources.log().log(LogCode.CON_1001, describe(), host.name(), user);
            onOpened.run();
            openWhatArrivedMeanwhile();
        } else if (admission instanceof Admission.Refused refused) {
            resources.statistics().connectionRefused(SecurityStatistics.RefusalReason.NOT_ACTIVE);
            refuse(refusalCondition(host, refused), refused.description()
                    + (refused.redirectAddress() == null ? "" : " (redirected to " + refused.redirectAddress() + ")"));
        }
    }

    /** Sessions and links the client opened while its open was held (clients may pipeline them). */
    private void openWhatArrivedMeanwhile() {
        EnumSet<EndpointState> local = EnumSet.of(EndpointState.UNINITIALIZED);
        EnumSet<EndpointState> remote = EnumSet.of(EndpointState.ACTIVE);
        for (Session session = protonConnection.sessionHead(local, remote); session != null;
             session = session.next(local, remote)) {
            onSessionRemoteOpen(session);
        }
        for (Link link = protonConnection.linkHead(local, remote); link != null; link = link.next(local, remote)) {
            if (link.getSession().getLocalState() == EndpointState.ACTIVE) {
                onLinkRemoteOpen(link);
            }
        }
    }

    private static ErrorCondition refusalCondition(VirtualHost host, Admission.Refused refused) {
        String description = refused.description();
        if (refused.kind() == ErrorKind.NOT_ACTIVE && (description == null || description.isBlank())) {
            description = "virtual host " + host.name() + " is not active on this node (replica); try another node";
        }
        if (refused.redirectAddress() != null) {
            try {
                return ErrorConditions.redirect(description, refused.redirectAddress(), host.name());
            } catch (IllegalArgumentException e) {
                LOG.warn("Ignoring redirect for virtual host {}: {}", host.name(), e.getMessage());
            }
        }
        return ErrorConditions.of(refused.kind(), description);
    }

    /** Answers the open and closes at once, marking the open as failed so clients wait for the close's error. */
    private void refuse(ErrorCondition condition, String reason) {
        resources.log().log(LogCode.CON_1003, describe(), reason);
        closeReason = "refused: " + reason;
        protonConnection.setProperties(Map.of(CONNECTION_ESTABLISHMENT_FAILED, true));
        protonConnection.open();
        protonConnection.setCondition(condition);
        protonConnection.close();
    }

    @Override
    public void onConnectionRemoteClose(Connection connection) {
        ErrorCondition remote = connection.getRemoteCondition();
        if (protonConnection.getLocalState() != EndpointState.CLOSED) {
            closeReason = remote != null && remote.getCondition() != null
                    ? "closed by client: " + remote.getCondition() + " " + remote.getDescription()
                    : "closed by client";
            protonConnection.close();
        }
    }

    @Override
    public void onSessionRemoteOpen(Session session) {
        if (virtualHost != null && protonConnection.getLocalState() == EndpointState.ACTIVE
                && session.getLocalState() == EndpointState.UNINITIALIZED) {
            session.open();
        }
    }

    @Override
    public void onSessionRemoteClose(Session session) {
        List<Link> ofSession = new ArrayList<>();
        for (Link link : links.keySet()) {
            if (link.getSession() == session) {
                ofSession.add(link);
            }
        }
        for (Link link : ofSession) {
            links.remove(link).onEnded();
        }
        session.close();
        session.free();
    }

    @Override
    public void onLinkRemoteOpen(Link link) {
        if (virtualHost == null || protonConnection.getLocalState() != EndpointState.ACTIVE) {
            return;
        }
        if (link == null) {
            // Proton raised the event for an attach it could not tie to a link (seen with fuzzed attaches)
            close(ErrorConditions.condition(AmqpError.INVALID_FIELD, "an attach that matches no link"),
                    "protocol error: an attach that matches no link");
            return;
        }
        if (links.containsKey(link)) {
            return; // opened already, when the held open was answered (openWhatArrivedMeanwhile)
        }
        if (sameNameAttached(link)) {
            // a duplicate on the same session never gets here (IncomingFrameGuard closes the connection)
            AmqpLink.refuseAttach(link, ErrorConditions.condition(AmqpError.INVALID_FIELD, "a link named '"
                    + link.getName() + "' with role " + (link instanceof Sender ? "receiver" : "sender")
                    + " is already attached on this connection; link names are unique per direction per connection"));
            return;
        }
        AmqpLink amqpLink;
        if (link instanceof Receiver receiver) {
            amqpLink = receiver.getRemoteTarget() instanceof Coordinator
                    ? new TransactionCoordinatorLink(this, receiver)
                    : new IncomingLink(this, receiver);
        } else {
            amqpLink = new OutgoingLink(this, (Sender) link);
        }
        link.setContext(amqpLink);
        links.put(link, amqpLink);
        amqpLink.attach();
    }

    /** Whether a link of this connection with the same name and role is still attached by the client. */
    private boolean sameNameAttached(Link link) {
        for (Link other : links.keySet()) {
            if (other != link && other.getName().equals(link.getName()) && (other instanceof Sender) == (link instanceof Sender)
                    && other.getRemoteState() == EndpointState.ACTIVE) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void onLinkRemoteDetach(Link link, boolean closed) {
        AmqpLink amqpLink = links.remove(link);
        if (amqpLink != null) {
            amqpLink.onRemoteDetach(closed);
        } else if (link.getLocalState() != EndpointState.CLOSED) {
            link.close();
            link.free();
        }
    }

    @Override
    public void onLinkFlow(Link link) {
        AmqpLink amqpLink = links.get(link);
        if (amqpLink != null) {
            amqpLink.onFlow();
        }
    }

    @Override
    public void onDelivery(Delivery delivery) {
        AmqpLink amqpLink = links.get(delivery.getLink());
        if (amqpLink != null) {
            amqpLink.onDelivery(delivery);
        }
    }

    @Override
    public void onTransportError(ErrorCondition condition) {
        if (protonConnection.getLocalState() == EndpointState.CLOSED) {
            // we closed first (e.g. Proton's idle timeout); the transport error is only its echo
            ErrorCondition local = protonConnection.getCondition();
            if (closeReason == null && local != null) {
                closeReason = "closed by broker: " + local.getDescription();
            }
            return;
        }
        String text = condition == null ? "unknown" : condition.getCondition() + " " + condition.getDescription();
        resources.log().log(LogCode.CON_1005, describe(), text);
        closeReason = "protocol error: " + text;
    }

    // ---- ending

    /** Closes with {@code condition}; the driver closes the socket once the close frame is written. */
    void close(ErrorCondition condition, String reason) {
        if (ended || protonConnection.getLocalState() == EndpointState.CLOSED) {
            return;
        }
        closeReason = reason;
        if (protonConnection.getLocalState() == EndpointState.UNINITIALIZED) {
            protonConnection.setProperties(Map.of(CONNECTION_ESTABLISHMENT_FAILED, true));
            protonConnection.open();
        }
        protonConnection.setCondition(condition);
        protonConnection.close();
    }

    /** Something failed inside the broker while handling this connection: tell the client and close. */
    void closeOnInternalError(Throwable failure) {
        close(ErrorConditions.condition(AmqpError.INTERNAL_ERROR, "internal error: " + failure), "internal error: " + failure);
    }

    private String endReason() {
        if (closeReason != null) {
            return closeReason;
        }
        if (protonConnection.getLocalState() == EndpointState.CLOSED && protonConnection.getCondition() != null) {
            return "closed by broker: " + protonConnection.getCondition().getDescription();
        }
        return "connection lost without a close frame";
    }

    /**
     * The socket is gone (whatever the reason): give back subscriptions, roll back open transactions,
     * deregister from the virtual host. Runs once.
     */
    void ended() {
        if (ended) {
            return;
        }
        ended = true;
        for (AmqpLink link : links.values()) {
            try {
                link.onEnded();
            } catch (RuntimeException e) {
                LOG.warn("Releasing a link of {} failed", describe(), e);
            }
        }
        links.clear();
        try {
            transactions.rollbackAll();
        } finally {
            if (registration != null) {
                registration.deregister();
                registration = null;
                resources.log().log(LogCode.CON_1002, describe() + " : " + endReason());
            }
        }
    }
}
