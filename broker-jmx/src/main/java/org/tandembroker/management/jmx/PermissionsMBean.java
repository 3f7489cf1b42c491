package org.tandembroker.management.jmx;

/**
 * The client permissions ({@code org.tandembroker:type=Permissions}): the permissions file in force and its reload.
 * JMX access itself follows the users file's roles, not this file.
 */
public interface PermissionsMBean {

    /** The permissions file; empty when none is configured (authorization off). */
    String getPermissionsFile();

    /** Whether a permissions file is in force. */
    boolean isAuthorizationEnabled();

    /**
     * Reads the permissions file again: its rules apply at once to new links and to every later publish; with
     * mistakes the rules in force stay and the answer lists the mistakes (also logged, SEC-1003).
     */
    String reloadPermissions();
}
