package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;

/**
 * What a run that lost confirmed messages leaves for the investigation: which messages (producer, sequence
 * ranges), when each range's confirmations came relative to the kill, each producer's last confirmed sequence, and
 * what every surviving node's JMX says about the queue (a message still queued on the survivor is a dispatch fault,
 * a message absent from it a store fault).
 */
final class LossEvidence {
    private LossEvidence() {
    }

    static String describe(DeliveryLedger ledger, long killedNanos, int producers, HaCluster cluster) {
        List<DeliveryLedger.Missing> missing = ledger.missing();
        StringBuilder text = new StringBuilder();
        long beforeKill = missing.stream().filter(m -> m.confirmedAtNanos() < killedNanos).count();
        text.append(String.format(Locale.ROOT, "%d confirmed messages never arrived: %d confirmed before the kill, %d"
                + " after it.%n%n", missing.size(), beforeKill, missing.size() - beforeKill));
        text.append("Missing ranges (producer: first..last sequence, confirmed at ms relative to the kill):\n");
        for (Range range : ranges(missing)) {
            text.append(String.format(Locale.ROOT, "  producer %d: %d..%d (%d), confirmed %+.0f..%+.0f ms; its last "
                            + "confirmed sequence %d%n", range.producer, range.first, range.last,
                    range.last - range.first + 1, (range.firstConfirmed - killedNanos) / 1e6,
                    (range.lastConfirmed - killedNanos) / 1e6, ledger.lastConfirmed(range.producer)));
        }
        text.append("\nProducers without a missing message: ");
        List<String> complete = new ArrayList<>();
        for (int producer = 0; producer < producers; producer++) {
            final int p = producer;
            if (missing.stream().noneMatch(m -> m.producer() == p)) {
                complete.add(producer + " (last " + ledger.lastConfirmed(producer) + ")");
            }
        }
        text.append(complete.isEmpty() ? "none" : String.join(", ", complete)).append("\n\n");
        text.append("Every queue on each running node (JMX; a dead-letter queue holding them means they were\n"
                + "delivered too often, not lost):\n");
        for (int i = 0; i < cluster.size(); i++) {
            text.append("  ").append(cluster.nodeName(i)).append(": ").append(queueState(cluster, i)).append('\n');
        }
        return text.toString();
    }

    /**
     * Receives what a new consumer (its own connection, the failover URL) still gets from the queue, to tell a
     * consumer that stopped being fed from messages that are gone: a missing message it receives was on the
     * queue all along. Records arrivals in {@code ledger}; stops after 10 s without a message.
     */
    static String drainWithAFreshConsumer(Clients clients, DeliveryLedger ledger) {
        long missingBefore = ledger.check().missing();
        long received = 0;
        try (Connection connection = clients.connection("perf-load-evidence")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(FailoverUnderLoadRun.QUEUE));
            for (Message message = consumer.receive(10_000); message != null; message = consumer.receive(10_000)) {
                ledger.arrived(message.getIntProperty(Clients.PRODUCER), message.getLongProperty(Clients.SEQUENCE));
                received++;
            }
        } catch (JMSException | RuntimeException e) {
            return String.format(Locale.ROOT, "%nA fresh consumer failed after %d messages: %s%n", received, e);
        }
        long missingAfter = ledger.check().missing();
        return String.format(Locale.ROOT, "%nA fresh consumer on a new connection then received %d messages; %d of the"
                + " missing were among them (still missing: %d).%n", received, missingBefore - missingAfter,
                missingAfter);
    }

    private static String queueState(HaCluster cluster, int node) {
        if (!cluster.node(node).isAlive()) {
            return "not running";
        }
        try (JMXConnector connector = cluster.openJmx(node)) {
            MBeanServerConnection mbeans = connector.getMBeanServerConnection();
            String state = String.valueOf(mbeans.getAttribute(HaCluster.storeMBeanName(), "NodeState"));
            List<String> queues = new ArrayList<>();
            for (ObjectName queue : new TreeSet<>(mbeans.queryNames(new ObjectName(
                    "org.tandembroker:type=Queue,virtualHost=" + BrokerFiles.VIRTUAL_HOST + ",*"), null))) {
                queues.add(String.format(Locale.ROOT, "%s: depth %s, %s consumers, %s in, %s out",
                        queue.getKeyProperty("name"), mbeans.getAttribute(queue, "DepthMessages"),
                        mbeans.getAttribute(queue, "ConsumerCount"), mbeans.getAttribute(queue, "MessagesIn"),
                        mbeans.getAttribute(queue, "MessagesOut")));
            }
            return state + (queues.isEmpty() ? "; no queue MBeans" : "; queues (counts since activation): "
                    + String.join("; ", queues));
        } catch (Exception e) {
            return "no answer (" + e + ")";
        }
    }

    private static List<Range> ranges(List<DeliveryLedger.Missing> missing) {
        List<Range> ranges = new ArrayList<>();
        Range current = null;
        for (DeliveryLedger.Missing m : missing) {
            if (current != null && current.producer == m.producer() && current.last + 1 == m.sequence()) {
                current.last = m.sequence();
                current.lastConfirmed = m.confirmedAtNanos();
            } else {
                current = new Range(m.producer(), m.sequence(), m.confirmedAtNanos());
                ranges.add(current);
            }
        }
        return ranges;
    }

    /** Consecutive missing sequences of one producer. */
    private static final class Range {
        final int producer;
        final long first;
        final long firstConfirmed;
        long last;
        long lastConfirmed;

        Range(int producer, long first, long confirmed) {
            this.producer = producer;
            this.first = first;
            this.firstConfirmed = confirmed;
            this.last = first;
            this.lastConfirmed = confirmed;
        }
    }
}
