package org.tandembroker.store.bdb;

import java.util.Optional;
import java.util.function.Supplier;
import org.tandembroker.core.store.CommitterStatistics;
import org.tandembroker.core.store.LogFigures;
import org.tandembroker.core.store.StoreFigureSource;
import org.tandembroker.store.bdb.commit.CommitterStats;

/**
 * {@link StoreFigureSource} of a JE store (standalone or replicated): JE's log figures and the coalescing
 * committer's counters, turned into the core's records. Holds no state: each reading asks the store.
 */
public final class JeStoreFigures implements StoreFigureSource {
    private final Supplier<Optional<JeLogFigures>> log;
    private final Supplier<Optional<CommitterStats>> committer;

    /**
     * @param log       the store's JE log figures, empty while it is not open
     * @param committer its committer's counters, empty while it does not commit
     */
    public JeStoreFigures(Supplier<Optional<JeLogFigures>> log, Supplier<Optional<CommitterStats>> committer) {
        this.log = log;
        this.committer = committer;
    }

    @Override
    public Optional<LogFigures> logFigures() {
        return log.get().map(JeStoreFigures::of);
    }

    @Override
    public Optional<CommitterStatistics> committerStatistics() {
        return committer.get().map(JeStoreFigures::of);
    }

    static LogFigures of(JeLogFigures f) {
        return new LogFigures(f.availableLogSize(), f.totalLogSize(), f.activeLogSize(), f.reservedLogSize(),
                f.protectedLogSize(), f.logFsyncs());
    }

    static CommitterStatistics of(CommitterStats s) {
        return new CommitterStatistics(s.commits(), s.failures(), s.flushes(), s.flushedCommits(), s.largestBatch());
    }
}
