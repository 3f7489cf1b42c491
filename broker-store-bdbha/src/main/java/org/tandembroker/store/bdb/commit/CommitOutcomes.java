package org.tandembroker.store.bdb.commit;

/** Observes a committer's outcomes on its threads (several at once in an applier pool). */
public interface CommitOutcomes {
    /** A commit or a flushed batch succeeded. */
    void succeeded();

    /** A commit or flush failed with {@code cause}; returns what the affected futures fail with. */
    Throwable failed(Throwable cause);

    /** Failures reach the futures unchanged. */
    static CommitOutcomes passThrough() {
        return new CommitOutcomes() {
            @Override
            public void succeeded() {
            }

            @Override
            public Throwable failed(Throwable cause) {
                return cause;
            }
        };
    }
}
