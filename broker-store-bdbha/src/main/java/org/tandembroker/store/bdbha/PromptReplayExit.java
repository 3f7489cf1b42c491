package org.tandembroker.store.bdbha;

import com.sleepycat.je.rep.RepInternal;
import com.sleepycat.je.rep.ReplicatedEnvironment;
import com.sleepycat.je.rep.impl.RepImpl;
import com.sleepycat.je.rep.impl.node.RepNode;
import com.sleepycat.je.rep.impl.node.Replica;
import java.lang.reflect.Field;
import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a replica whose master connection dropped leave JE's replay loop within {@link #MAX_POLL_NANOS} instead of
 * up to a second, so that the election for a new master starts that much sooner.
 *
 * <p><b>Why.</b> When a replica's connection to its master fails (the master was killed), JE 18.3's {@code Replica}
 * asks its replay thread to finish what is queued and joins it. That thread waits for the next message in
 * {@code replayQueue.poll} with a fixed 1 s interval ({@code Replica.ReplayThread.QUEUE_POLL_INTERVAL_NS}, a
 * compile-time constant no parameter changes), and it notices the request only when a poll comes back empty. Under
 * load a message has just arrived, so nearly every failover spent a full second there before the node went
 * {@code UNKNOWN} (docs/perf/log.md, "Three-node failover on a quiet machine"): half of the 2 s the issue allows.
 *
 * <p><b>How.</b> After each environment opens, the replica's private {@code replayQueue} field is given a
 * {@link CappedPollQueue} over the same queue: every operation goes to the original queue (so the swap needs no
 * coordination with JE's threads, which may hold either reference), except that a timed poll waits at most
 * {@link #MAX_POLL_NANOS}. An idle replica's replay thread therefore wakes 20 times a second instead of once, finds
 * nothing, and polls again: JE's loop treats an empty poll exactly as it does at the end of its own interval
 * (pending acknowledgements flushed, the master's sync status checked).
 *
 * <p>This reaches into JE's internals by reflection; the JE version is pinned in the build. If the field is not
 * there or cannot be set, the node logs it once and fails over as JE does by itself.
 */
final class PromptReplayExit {
    private static final Logger LOG = LoggerFactory.getLogger(PromptReplayExit.class);

    /** The longest a replay thread waits for a message before it looks at its exit request again. */
    static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final String FIELD = "replayQueue";
    private static volatile boolean unavailableLogged;

    private PromptReplayExit() {
    }

    /** Caps the replay poll of {@code environment}'s replica (nothing when it is capped already). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void install(ReplicatedEnvironment environment, String nodeName) {
        try {
            RepImpl repImpl = RepInternal.getRepImpl(environment);
            RepNode repNode = repImpl == null ? null : repImpl.getRepNode();
            Replica replica = repNode == null ? null : repNode.getReplica();
            if (replica == null) {
                return;
            }
            Field field = replayQueueField();
            Object queue = field.get(replica);
            if (queue instanceof CappedPollQueue) {
                return;
            }
            if (!(queue instanceof BlockingQueue<?> blocking)) {
                throw new NoSuchFieldException(FIELD + " is a " + (queue == null ? "null" : queue.getClass().getName()));
            }
            field.set(replica, new CappedPollQueue(blocking, MAX_POLL_NANOS));
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (!unavailableLogged) {
                unavailableLogged = true;
                LOG.info("Node {}: cannot shorten JE's replay poll ({}): a replica whose master fails waits up to"
                        + " 1 s more before its election", nodeName, e.toString());
            }
        }
    }

    /** Whether {@code environment}'s replica has its replay poll capped (for tests and diagnostics). */
    static boolean installed(ReplicatedEnvironment environment) throws ReflectiveOperationException {
        return replayQueueField().get(RepInternal.getRepImpl(environment).getRepNode().getReplica())
                instanceof CappedPollQueue;
    }

    private static Field replayQueueField() throws NoSuchFieldException {
        Field field = Replica.class.getDeclaredField(FIELD);
        field.setAccessible(true);
        return field;
    }

    /**
     * A blocking queue that is another one, except that a timed {@link #poll(long, TimeUnit)} waits at most
     * {@code maxPollNanos}. Thread-safe as the queue it wraps: it holds no state of its own.
     */
    static final class CappedPollQueue<E> extends AbstractQueue<E> implements BlockingQueue<E> {
        private final BlockingQueue<E> queue;
        private final long maxPollNanos;

        CappedPollQueue(BlockingQueue<E> queue, long maxPollNanos) {
            this.queue = queue;
            this.maxPollNanos = maxPollNanos;
        }

        @Override
        public E poll(long timeout, TimeUnit unit) throws InterruptedException {
            return queue.poll(Math.min(unit.toNanos(timeout), maxPollNanos), TimeUnit.NANOSECONDS);
        }

        @Override
        public Iterator<E> iterator() {
            return queue.iterator();
        }

        @Override
        public int size() {
            return queue.size();
        }

        @Override
        public void put(E e) throws InterruptedException {
            queue.put(e);
        }

        @Override
        public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
            return queue.offer(e, timeout, unit);
        }

        @Override
        public E take() throws InterruptedException {
            return queue.take();
        }

        @Override
        public int remainingCapacity() {
            return queue.remainingCapacity();
        }

        @Override
        public int drainTo(Collection<? super E> c) {
            return queue.drainTo(c);
        }

        @Override
        public int drainTo(Collection<? super E> c, int maxElements) {
            return queue.drainTo(c, maxElements);
        }

        @Override
        public boolean offer(E e) {
            return queue.offer(e);
        }

        @Override
        public E poll() {
            return queue.poll();
        }

        @Override
        public E peek() {
            return queue.peek();
        }

        @Override
        public void clear() {
            queue.clear();
        }
    }
}
