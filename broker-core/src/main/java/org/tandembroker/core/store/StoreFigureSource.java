package org.tandembroker.core.store;

import java.util.Optional;

/**
 * What a store can tell management about its disk use and its commits, when it keeps such figures (a store may
 * offer it through {@link MessageStore#figures()}).
 *
 * <p><b>Threads.</b> Any thread. A reading may cost the store a statistics call: management reads every few
 * seconds from its sampler thread, never per message or per metric scrape.
 */
public interface StoreFigureSource {

    /** The store's log on disk; empty while the store is not open (opening, closed, being replaced). */
    Optional<LogFigures> logFigures();

    /** The commit pipeline's counters; empty while this node does not commit (a replica, a closed store). */
    Optional<CommitterStatistics> committerStatistics();
}
