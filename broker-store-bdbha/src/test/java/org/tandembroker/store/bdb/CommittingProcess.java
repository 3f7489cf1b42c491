package org.tandembroker.store.bdb;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.store.StoreTransaction;

/**
 * The child JVM of {@link KilledProcessTest}: opens a store in {@code args[0]} (the work directory) and commits
 * messages forever, up to 64 in flight, printing {@code COMMITTED <id>} once each commit's future completed.
 * It never stops by itself: the test kills it.
 */
public final class CommittingProcess {
    static final UUID QUEUE = UUID.fromString("0b1d0000-0000-0000-0000-00000000c0de");
    static final String COMMITTED = "COMMITTED ";

    private CommittingProcess() {
    }

    /** The content of message {@code id}: its size and bytes follow from the id, so the test can check them. */
    static byte[] contentFor(long id) {
        byte[] content = new byte[(int) (id % 5000) + 1];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (id * 31 + i);
        }
        return content;
    }

    static byte[] metadataFor(long id) {
        return ("message-" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        StoreFixture fixture = new StoreFixture(Path.of(args[0]));
        BdbMessageStore store = fixture.open(Map.of(), List.of());
        Semaphore inFlight = new Semaphore(64);
        out.println("READY");
        while (true) {
            if (!inFlight.tryAcquire(30, TimeUnit.SECONDS)) {
                System.err.println("no commit completed for 30 s");
                System.exit(2);
            }
            long id = store.nextMessageId();
            StoreTransaction txn = store.newTransaction();
            txn.storeMessage(id, metadataFor(id), contentFor(id));
            txn.enqueue(QUEUE, id);
            txn.commit().whenComplete((ok, failure) -> {
                if (failure == null) {
                    out.println(COMMITTED + id);
                } else {
                    System.err.println("FAILED " + id + " " + failure);
                }
                inFlight.release();
            });
        }
    }
}
