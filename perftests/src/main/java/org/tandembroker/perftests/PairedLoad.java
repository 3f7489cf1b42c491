package org.tandembroker.perftests;

import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * N producer/consumer pairs on one queue, each producer and each consumer on its own connection: producers send
 * persistent messages synchronously (each send returns once the broker settled it), consumers receive with
 * AUTO_ACKNOWLEDGE and record each message's end-to-end latency; each producer records how long each send took
 * (the broker's confirmation), so a tail can be placed on the publish side or after it.
 *
 * <p>A run: start the consumers, then the producers; warm up; measure a window (counters and the latency
 * histogram are snapshotted at its edges); stop the producers; drain until every confirmed message arrived (or
 * a deadline passes); stop the consumers; check the ledger.
 *
 * <p>Threads: one thread per producer ({@code perf-producer-<i>}) and per consumer ({@code perf-consumer-<i>}),
 * each owning its connection; they share only the adders, the latency recorders and the ledger, all thread-safe.
 * The caller's thread runs {@link #run} and owns the phase timing.
 */
public final class PairedLoad {
    /** What a run measured. */
    public record Result(int pairs, int bodySize, Duration window, long producedInWindow, long consumedInWindow,
                         Histogram latencyMicros, Histogram sendLatencyMicros, Duration brokerCpu,
                         Duration clientCpu, Duration otherCpu, FsyncCount fsyncs, DeliveryLedger.Check ledger,
                         boolean drained, List<String> errors) {
        public double producedPerSecond() {
            return producedInWindow / seconds();
        }

        public double consumedPerSecond() {
            return consumedInWindow / seconds();
        }

        /** CPU used in the window as a percentage of one core (200 % = both cores of a 2-core machine). */
        public double brokerCpuPercent() {
            return 100.0 * brokerCpu.toNanos() / window.toNanos();
        }

        public double clientCpuPercent() {
            return 100.0 * clientCpu.toNanos() / window.toNanos();
        }

        /** CPU used in the window by every other process on the machine, as a percentage of one core. */
        public double otherCpuPercent() {
            return Math.max(0, 100.0 * otherCpu.toNanos() / window.toNanos());
        }

        private double seconds() {
            return window.toNanos() / 1e9;
        }
    }

    /** Fsyncs in the window, or why there is no count. */
    public record FsyncCount(long count, String unavailableBecause) {
        public static FsyncCount unavailable(String why) {
            return new FsyncCount(-1, why);
        }

        public boolean available() {
            return count >= 0;
        }
    }

    private final Clients clients;
    private final String queueName;
    private final int pairs;
    private final LongAdder produced = new LongAdder();
    private final LongAdder consumed = new LongAdder();
    private final Recorder latency = ConsumerLoop.latencyRecorder();
    private final Recorder sendLatency = ConsumerLoop.latencyRecorder();
    private final DeliveryLedger ledger;
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private final CountDownLatch attached;
    private volatile boolean producing = true;
    private volatile boolean consuming = true;

    public PairedLoad(Clients clients, String queueName, int pairs) {
        this.clients = clients;
        this.queueName = queueName;
        this.pairs = pairs;
        this.ledger = new DeliveryLedger(pairs);
        this.attached = new CountDownLatch(2 * pairs);
    }

    /**
     * Runs the load against {@code broker}. The warm-up starts once every producer and consumer is attached (on a
     * busy machine connecting can take seconds). The window ends after {@code window}, or later if fewer than
     * {@code minWindowMessages} were consumed by then (at most a minute later): the rates divide by the real
     * length, so they stay honest, and a short smoke window still sees messages.
     *
     * @param broker   the broker process (its CPU time and fsyncs are measured), or null for a broker this
     *                 harness did not start (an external URL): then broker CPU is 0 and fsyncs are not counted
     * @param fsyncs   counts the broker's fsyncs over the window (or says why it cannot)
     * @param progress told of the phases
     */
    public Result run(BrokerProcess broker, Duration warmUp, Duration window, long minWindowMessages,
                      Duration drainDeadline, FsyncCounter fsyncs, Progress progress) throws InterruptedException {
        List<Thread> consumers = new ArrayList<>();
        List<Thread> producers = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            consumers.add(start("perf-consumer-" + i, new ConsumerLoop(clients, queueName, i, ledger, consumed,
                    latency, () -> consuming, errors, attached::countDown)));
        }
        for (int i = 0; i < pairs; i++) {
            int id = i;
            producers.add(start("perf-producer-" + i, () -> produce(id)));
        }
        if (!attached.await(2, TimeUnit.MINUTES)) {
            errors.add(attached.getCount() + " of " + 2 * pairs + " clients not attached after 2 minutes");
        }
        progress.countDown("warm-up", warmUp, consumed::sum);

        long producedAtStart = produced.sum();
        long consumedAtStart = consumed.sum();
        latency.getIntervalHistogram(); // discards the warm-up's latencies
        sendLatency.getIntervalHistogram();
        Duration brokerCpuAtStart = brokerCpu(broker);
        Duration clientCpuAtStart = clientCpu();
        Duration machineCpuAtStart = SystemCpu.busy();
        long startNanos = System.nanoTime();
        FsyncCounter.Measurement fsyncMeasurement = broker == null
                ? FsyncCounter.disabled("the broker is not a process of this harness").start(0, window)
                : fsyncs.start(broker.pid(), window);

        progress.countDown("measuring", window, consumed::sum);
        long extendedUntil = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (consumed.sum() - consumedAtStart < minWindowMessages && System.nanoTime() < extendedUntil
                && errors.isEmpty()) {
            progress.update(String.format(Locale.ROOT, "measuring until %,d messages are consumed (%,d so far)",
                    minWindowMessages, consumed.sum() - consumedAtStart));
            Thread.sleep(50);
        }

        long producedInWindow = produced.sum() - producedAtStart;
        long consumedInWindow = consumed.sum() - consumedAtStart;
        Histogram windowLatency = latency.getIntervalHistogram();
        Histogram windowSendLatency = sendLatency.getIntervalHistogram();
        Duration brokerCpu = brokerCpu(broker).minus(brokerCpuAtStart);
        Duration clientCpu = clientCpu().minus(clientCpuAtStart);
        Duration otherCpu = SystemCpu.busy().minus(machineCpuAtStart).minus(brokerCpu).minus(clientCpu);
        Duration measured = Duration.ofNanos(System.nanoTime() - startNanos);
        FsyncCount fsyncCount = fsyncMeasurement.await();
        if (measured.minus(window).toMillis() > 500) {
            fsyncCount = FsyncCount.unavailable("the window was extended past the counted period");
        }

        producing = false;
        for (Thread producer : producers) {
            producer.join(TimeUnit.MINUTES.toMillis(2));
        }
        boolean drained = progress.awaitDrain(drainDeadline, ledger::confirmedCount, ledger::confirmedArrivals,
                () -> consumers.stream().anyMatch(Thread::isAlive));
        consuming = false;
        for (Thread consumer : consumers) {
            consumer.join(TimeUnit.MINUTES.toMillis(1));
        }
        return new Result(pairs, clients.bodySize(), measured, producedInWindow, consumedInWindow, windowLatency,
                windowSendLatency, brokerCpu, clientCpu, otherCpu, fsyncCount, ledger.check(), drained,
                List.copyOf(errors));
    }

    private static Thread start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.start();
        return thread;
    }

    private static Duration brokerCpu(BrokerProcess broker) {
        return broker == null ? Duration.ZERO : broker.cpuTime();
    }

    private static Duration clientCpu() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
    }

    private void produce(int id) {
        long sequence = 0;
        try (Connection connection = clients.syncSendConnection("perf-producer-" + id)) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queueName));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            attached.countDown();
            while (producing) {
                Message message = clients.message(session, id, sequence);
                long sentAt = System.nanoTime();
                producer.send(message);
                long micros = (System.nanoTime() - sentAt) / 1000;
                sendLatency.recordValue(Math.min(micros, ConsumerLoop.MAX_LATENCY_MICROS));
                ledger.confirmed(id, sequence);
                sequence++;
                produced.increment();
            }
        } catch (JMSException | RuntimeException e) {
            errors.add("producer " + id + " after " + sequence + " confirmed sends: " + e);
        }
    }
}
