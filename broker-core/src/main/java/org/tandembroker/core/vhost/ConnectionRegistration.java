package org.tandembroker.core.vhost;

/** An admitted connection's membership of its virtual host. */
public interface ConnectionRegistration {

    /** The connection closed: its temporary queues are deleted. (The front end rolls back its open transactions.) Idempotent. */
    void deregister();
}
