package org.tandembroker.core.vhost;

/** An admitted connection's membership of its virtual host. */
public interface ConnectionRegistration {

    /** The connection closed: its temporary queues are deleted, its open transactions rolled back. Idempotent. */
    void deregister();
}
