package org.tandembroker.perftests;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the machine's CPU went while a backlog filled, per confirmed send: the master (Artemis: the primary) and
 * the replica (the backup) processes, the clients (this harness's JVM, whose threads are the producers), and the
 * rest of the machine (the kernel's own workers such as page-cache writeback and the file system's, network
 * interrupts, any other process); and how much of the machine stayed idle (or waited for the disk).
 *
 * <p>Run to run the same broker's rate moves by up to 1.5x on this machine kind, and every component's cost per
 * message moves with it, the clients' included: these figures say whether a slow run was slow in the broker, in
 * the clients or in the kernel.
 *
 * @param masterMicros  the master's CPU µs per confirmed send
 * @param replicaMicros the replica's
 * @param clientMicros  the clients'
 * @param restMicros    the rest of the machine's busy time
 * @param idlePercent   the share of all cores that was not busy (idle, or waiting for I/O)
 */
public record FillCpu(double masterMicros, double replicaMicros, double clientMicros, double restMicros,
                      double idlePercent) {

    /** The CPU time each part had used at one instant, and the machine's busy time. */
    public record Sample(long nanoTime, Duration master, Duration replica, Duration clients, Duration machineBusy) {

        /** Now, for the two broker processes of a group and this JVM. */
        public static Sample take(BrokerProcess master, BrokerProcess replica) {
            return new Sample(System.nanoTime(), master.cpuTime(), replica.cpuTime(),
                    ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO), SystemCpu.busy());
        }
    }

    /**
     * The CPU per message between two samples; empty when nothing was confirmed between them or the machine's
     * counters could not be read (outside Linux).
     */
    public static Optional<FillCpu> between(Sample start, Sample end, long confirmed, int cores) {
        long elapsed = end.nanoTime() - start.nanoTime();
        Duration busy = end.machineBusy().minus(start.machineBusy());
        if (confirmed <= 0 || elapsed <= 0 || busy.isZero() || cores < 1) {
            return Optional.empty();
        }
        Duration master = end.master().minus(start.master());
        Duration replica = end.replica().minus(start.replica());
        Duration clients = end.clients().minus(start.clients());
        // Counters tick at different moments (the machine's in 10 ms steps): never report a negative rest
        Duration rest = busy.minus(master).minus(replica).minus(clients);
        double idle = 100.0 * (1 - (double) busy.toNanos() / ((double) elapsed * cores));
        return Optional.of(new FillCpu(micros(master, confirmed), micros(replica, confirmed),
                micros(clients, confirmed), rest.isNegative() ? 0 : micros(rest, confirmed), Math.max(0, idle)));
    }

    private static double micros(Duration cpu, long messages) {
        return cpu.toNanos() / 1e3 / messages;
    }

    /** All four components together, µs per confirmed send. */
    public double totalMicros() {
        return masterMicros + replicaMicros + clientMicros + restMicros;
    }

    /** E.g. {@code 72 / 26 / 80 / 19 µs, idle 8 %}. */
    public String describe() {
        return String.format(Locale.ROOT, "%.0f / %.0f / %.0f / %.0f µs, idle %.0f %%", masterMicros, replicaMicros,
                clientMicros, restMicros, idlePercent);
    }
}
