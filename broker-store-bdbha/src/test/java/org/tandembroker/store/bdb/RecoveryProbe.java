package org.tandembroker.store.bdb;

import com.sleepycat.je.Cursor;
import com.sleepycat.je.CursorConfig;
import com.sleepycat.je.Database;
import com.sleepycat.je.DatabaseConfig;
import com.sleepycat.je.DatabaseEntry;
import com.sleepycat.je.DiskOrderedCursor;
import com.sleepycat.je.DiskOrderedCursorConfig;
import com.sleepycat.je.Environment;
import com.sleepycat.je.OperationStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.tandembroker.core.message.MessageMetadata;
import org.tandembroker.core.message.MetadataCodec;
import org.tandembroker.core.store.ConfigRecord;
import org.tandembroker.core.store.MessageStore;
import org.tandembroker.core.store.StoreTransaction;
import org.tandembroker.core.store.StoredEntry;
import org.tandembroker.core.testing.VirtualHostHarness;

/**
 * A measurement, not a test: where the time of a standalone store's recovery goes. Fills a store with
 * {@code messages} x {@code bodySize} messages on one queue (once; the directory is reused), then reopens it and
 * times each phase with {@link System#nanoTime()}: JE scans alone (metadata with values, entry keys, with and
 * without {@code DiskOrderedCursor}), the paged reads of recovery (configuration and horizon, the head page, the
 * rest, decoding, the orphan sweep's id pages), and a whole virtual host on the store: when it is ACTIVE, when the
 * queue is fully loaded, when recovery completed.
 *
 * <pre>
 * mvn -B -o -q install -pl broker-core -DskipTests &amp;&amp; mvn -B -o -q test-compile -pl broker-store-bdbha
 * mvn -B -o -q dependency:build-classpath -pl broker-store-bdbha -Dmdep.includeScope=test -Dmdep.outputFile=/tmp/cp
 * java -Xmx4g -cp "$(cat /tmp/cp):broker-store-bdbha/target/classes:broker-store-bdbha/target/test-classes" \
 *     org.tandembroker.store.bdb.RecoveryProbe /tmp/recovery-probe 500000 2048
 * </pre>
 * The first run fills the store (about 25 s and 1.1 GB for 500,000 x 2 KiB); each round then takes 20 to 40 s.
 * A probe reads a machine that other work shares: compare rounds of one run, not runs.
 */
public final class RecoveryProbe {
    private static final UUID QUEUE = UUID.fromString("0000000a-0000-0000-0000-000000000001");

    private RecoveryProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args.length > 0 ? args[0] : "/tmp/recovery-probe");
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 500_000;
        int bodySize = args.length > 2 ? Integer.parseInt(args[2]) : 2048;
        StoreFixture fixture = new StoreFixture(work);
        if (!Files.exists(work.resolve("test/store/00000000.jdb"))) {
            fill(fixture, messages, bodySize);
        }
        for (int round = 1; round <= 2; round++) {
            System.out.println("---- round " + round + " (fresh JE environment each phase: cold JE cache, warm OS cache)");
            rawScans(fixture);
            pagedReads(fixture);
            virtualHost(fixture, messages);
        }
    }

    private static void fill(StoreFixture fixture, int messages, int bodySize) throws Exception {
        long start = System.nanoTime();
        BdbMessageStore store = fixture.open();
        StoreTransaction config = store.newTransaction();
        config.putConfig(new ConfigRecord(QUEUE, ConfigRecord.QUEUE, Map.of("name", "deep", "maxDepthMessages", "0",
                "maxDepthBytes", "0", "messageTtlMillis", "0", "maxDeliveries", "0")));
        config.commit().join();
        byte[] body = new byte[bodySize];
        StoreTransaction txn = store.newTransaction();
        for (int i = 0; i < messages; i++) {
            long id = store.nextMessageId();
            byte[] metadata = MetadataCodec.encode(new MessageMetadata("deep", null, true, 4, 0,
                    System.currentTimeMillis(), bodySize));
            txn.storeMessage(id, metadata, body);
            txn.enqueue(QUEUE, id);
            if ((i + 1) % 1000 == 0) {
                txn.commit().join();
                txn = store.newTransaction();
            }
        }
        if (!txn.isEmpty()) {
            txn.commit().join();
        }
        store.close();
        System.out.printf("filled %d x %d B in %.1f s%n", messages, bodySize, seconds(start));
    }

    private static Environment environment(StoreFixture fixture) throws Exception {
        BdbStoreSettings settings = BdbStoreSettings.from(StoreFixture.settings(Map.of(), List.of()),
                fixture.context());
        return new Environment(settings.storePath().toFile(), settings.environmentConfig());
    }

    private static void rawScans(StoreFixture fixture) throws Exception {
        try (Environment env = environment(fixture)) {
            DatabaseConfig dbConfig = new DatabaseConfig().setTransactional(true);
            try (Database metadata = env.openDatabase(null, StoreDatabases.METADATA_DB, dbConfig);
                 Database entries = env.openDatabase(null, StoreDatabases.ENTRIES_DB, dbConfig)) {
                timedScan("raw metadata scan (key+value, READ_COMMITTED cursor):", () -> scan(metadata, false));
                timedScan("raw entry scan (keys only, READ_COMMITTED cursor):   ", () -> scan(entries, true));
                timedScan("raw metadata scan again (warm JE cache):             ", () -> scan(metadata, false));
                timedScan("raw entry scan again (warm JE cache):                ", () -> scan(entries, true));
            }
        }
        try (Environment env = environment(fixture)) {
            DatabaseConfig dbConfig = new DatabaseConfig().setTransactional(true);
            try (Database metadata = env.openDatabase(null, StoreDatabases.METADATA_DB, dbConfig);
                 Database entries = env.openDatabase(null, StoreDatabases.ENTRIES_DB, dbConfig)) {
                timedScan("DiskOrderedCursor metadata (key+value), cold:         ", () -> diskOrdered(metadata, false));
                timedScan("DiskOrderedCursor entries (keys only), cold:          ", () -> diskOrdered(entries, true));
            }
        }
    }

    /** Runs one scan and prints how many records it read and how long it took. */
    private static void timedScan(String label, java.util.function.IntSupplier scan) {
        long start = System.nanoTime();
        int records = scan.getAsInt();
        System.out.printf("%s %d in %.3f s%n", label, records, seconds(start));
    }

    private static int scan(Database database, boolean keysOnly) {
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry value = new DatabaseEntry();
        if (keysOnly) {
            value.setPartial(0, 0, true);
        }
        int n = 0;
        try (Cursor cursor = database.openCursor(null, CursorConfig.READ_COMMITTED)) {
            while (cursor.getNext(key, value, null) == OperationStatus.SUCCESS) {
                n++;
            }
        }
        return n;
    }

    private static int diskOrdered(Database database, boolean keysOnly) {
        DatabaseEntry key = new DatabaseEntry();
        DatabaseEntry value = new DatabaseEntry();
        int n = 0;
        try (DiskOrderedCursor cursor = database.openCursor(new DiskOrderedCursorConfig().setKeysOnly(keysOnly))) {
            while (cursor.getNext(key, value, null) == OperationStatus.SUCCESS) {
                n++;
            }
        }
        return n;
    }

    /** The new recovery's reads: configuration and horizon, a head page, every page, decoding, the id sweep. */
    private static void pagedReads(StoreFixture fixture) throws Exception {
        try (Environment env = environment(fixture); StoreDatabases dbs = StoreDatabases.open(env)) {
            long start = System.nanoTime();
            StoreDatabases.RecoveryStart recoveryStart = dbs.recoverConfiguration(record -> { });
            System.out.printf("recoverConfiguration (config records + horizon): %.4f s, horizon %d%n",
                    seconds(start), recoveryStart.horizon());
            long horizon = recoveryStart.horizon();
            start = System.nanoTime();
            List<StoredEntry> head = dbs.readEntries(QUEUE, 0, horizon, 256);
            System.out.printf("head page (256 entries with metadata), cold: %.4f s%n", seconds(start));
            start = System.nanoTime();
            long after = head.get(head.size() - 1).messageId();
            int pages = 0;
            int entries = head.size();
            long slowest = 0;
            long decodeNanos = 0;
            long checksum = 0;
            while (true) {
                long pageStart = System.nanoTime();
                List<StoredEntry> page = dbs.readEntries(QUEUE, after, horizon, 2048);
                slowest = Math.max(slowest, System.nanoTime() - pageStart);
                pages++;
                entries += page.size();
                long decodeStart = System.nanoTime();
                for (StoredEntry entry : page) {
                    checksum += MetadataCodec.decode(entry.metadata()).contentSize();
                }
                decodeNanos += System.nanoTime() - decodeStart;
                if (page.size() < 2048) {
                    break;
                }
                after = page.get(page.size() - 1).messageId();
            }
            double total = seconds(start);
            System.out.printf("rest in %d pages of 2048: %d entries in %.3f s (%.0f entries/s; slowest page %.1f ms; "
                    + "decoding %.3f s of it) checksum %d%n", pages, entries, total, entries / total, slowest / 1e6,
                    decodeNanos / 1e9, checksum);
            start = System.nanoTime();
            long ids = 0;
            after = 0;
            while (true) {
                long[] page = dbs.readMessageIds(after, horizon, 8192);
                ids += page.length;
                if (page.length < 8192) {
                    break;
                }
                after = page[page.length - 1];
            }
            System.out.printf("orphan sweep's id pages (keys only, 8192 each): %d ids in %.3f s%n", ids,
                    seconds(start));
        }
    }

    private static void virtualHost(StoreFixture fixture, int messages) throws Exception {
        long start = System.nanoTime();
        try (VirtualHostHarness harness = new VirtualHostHarness(VirtualHostHarness.config(false,
                VirtualHostHarness.DEFAULTS, List.of(), List.of(), List.of()), () -> store(fixture),
                64L * 1024 * 1024)) {
            var queue = harness.host().queue("deep").orElseThrow();
            System.out.printf("virtual host ACTIVE after %.3f s; queue depth then %d%n", seconds(start),
                    queue.depthMessages());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (queue.depthMessages() < messages && System.nanoTime() < deadline) {
                Thread.sleep(5); // a probe, not a test
            }
            System.out.printf("queue depth %d after %.3f s%n", queue.depthMessages(), seconds(start));
            while (harness.host().recoveryInProgress() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            System.out.printf("recovery complete (references released, orphans swept) after %.3f s%n",
                    seconds(start));
            harness.logLines().forEach(line -> System.out.println("  " + line));
        }
    }

    private static MessageStore store(StoreFixture fixture) {
        try {
            return fixture.create(Map.of(), List.of());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
