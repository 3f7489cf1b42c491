package org.tandembroker.core;

/** Protocol-neutral error categories; a front end maps each to its protocol's error condition. */
public enum ErrorKind {
    /** An address, queue, exchange or virtual host does not exist. */
    NOT_FOUND,
    /** A limit was hit: queue depth, message size, memory, disk full, not enough replicas. */
    RESOURCE_LIMIT_EXCEEDED,
    /** The operation is not allowed by configuration (e.g. auto-create switched off for that use). */
    NOT_ALLOWED,
    /** The virtual host is not active on this node (a replica, or passivated). */
    NOT_ACTIVE,
    /** Authentication or authorisation failed. */
    UNAUTHORIZED_ACCESS,
    /** A malformed or invalid argument from the client. */
    INVALID_FIELD,
    /** The operation conflicts with the current state (e.g. a transaction already discharged). */
    ILLEGAL_STATE,
    /** A transaction could not commit and was rolled back. */
    TRANSACTION_ROLLBACK,
    /**
     * The outcome is unknown: the store may have committed (for example committed on the master without enough
     * replica acknowledgements). Never reported to a client as success.
     */
    IN_DOUBT,
    /** Anything else: a bug or an unexpected store failure. */
    INTERNAL_ERROR
}
