package org.tandembroker.core.oplog;

import java.text.MessageFormat;

/**
 * The operational log's stable codes. Operators grep for these; never renumber or reword a code's meaning.
 * The text after the code is a {@link MessageFormat} pattern.
 */
public enum LogCode {
    BRK_1001("BRK-1001", "Startup : Tandem {0} on Java {1} ({2})"),
    BRK_1002("BRK-1002", "Listening : {0}"),
    BRK_1003("BRK-1003", "Shutting down"),
    BRK_1004("BRK-1004", "Ready"),
    BRK_1005("BRK-1005", "Stopped"),
    BRK_1006("BRK-1006", "Configuration : {0}"),
    BRK_1007("BRK-1007", "Startup failed : {0}"),
    BRK_1008("BRK-1008", "Not ready : {0}"),
    /** A TLS listener's key store file changed: reloaded (new connections get it), or kept the previous key. */
    BRK_1009("BRK-1009", "Certificate : {0}"),
    BRK_1010("BRK-1010", "Warm-up : {0}"),

    VHT_1001("VHT-1001", "Created : {0}"),
    VHT_1002("VHT-1002", "Activated : {0}"),
    VHT_1003("VHT-1003", "Passivated : {0} : {1}"),
    VHT_1004("VHT-1004", "Stopped : {0}"),
    VHT_1005("VHT-1005", "Queue created : {0} (durable={1})"),
    VHT_1006("VHT-1006", "Queue deleted : {0}"),
    VHT_1007("VHT-1007", "Message dead-lettered : queue {0} : message {1} : {2} -> {3}"),
    VHT_1008("VHT-1008", "Publish refused : queue {0} : {1}"),
    /** A durable queue in the store and in the virtual host file: the file's changed limits were applied. */
    VHT_1009("VHT-1009", "Queue settings from the file applied : {0} : {1}"),
    /** A durable queue in the store and in the virtual host file: settings the file changes that were kept. */
    VHT_1010("VHT-1010", "Queue settings in the file not applied : {0} : {1} : the queue keeps its stored "
            + "settings (they shape the messages it holds); to change them, empty and delete the queue, or declare "
            + "one under another name, then restart"),
    /** Two stored records of one queue name (an old auto-creation race): the later one's entries were moved. */
    VHT_1011("VHT-1011", "Duplicate queue record merged : {0} : {1} stored entries of record {2} moved to the queue "
            + "kept under the name ({3}); its record removed"),
    /** A queue entry whose message the store does not hold (it cannot be delivered): the entry was removed. */
    VHT_1012("VHT-1012", "Queue entry without a message removed : queue {0} : message {1} : {2}"),

    MST_1001("MST-1001", "Created : {0} store for {1} at {2}"),
    MST_1003("MST-1003", "Closed : {0}"),
    MST_1004("MST-1004", "Recovery Start : {0}"),
    MST_1005("MST-1005", "Recovered {0} messages"),
    MST_1006("MST-1006", "Recovery Complete"),
    MST_1007("MST-1007", "Store Passivated"),
    MST_1008("MST-1008", "Store write failed : {0}"),
    MST_1009("MST-1009", "Store writable again : {0}"),
    MST_1010("MST-1010", "Disk space low : {0}"),
    MST_1011("MST-1011", "Disk space recovered : {0}"),
    /** A new master serves before its queues are loaded; MST-1005 and MST-1006 follow once they are. */
    MST_1012("MST-1012", "Recovery continues in the background : {0} queue entries loaded, serving clients while "
            + "{1} queue(s) load the rest"),
    /** A replica over its maxDisk with room on its volume may exceed it until it has cleaned (MST-1014 then). */
    MST_1013("MST-1013", "Disk limit raised : {0}"),
    MST_1014("MST-1014", "Disk limit restored : {0}"),

    CON_1001("CON-1001", "Open : {0} : virtual host {1} : user {2}"),
    CON_1002("CON-1002", "Close : {0}"),
    CON_1003("CON-1003", "Refused : {0} : {1}"),
    CON_1004("CON-1004", "Authentication failed : {0} : {1}"),
    CON_1005("CON-1005", "Protocol error : {0} : {1}"),

    /** A client was refused something the permissions file does not grant it. */
    SEC_1001("SEC-1001", "Access denied : {0} : {1}"),
    /** The permissions file was read (at startup or on a reload). */
    SEC_1002("SEC-1002", "Permissions loaded : {0} : {1}"),
    /** A reload found mistakes; the rules in force stay as they were. */
    SEC_1003("SEC-1003", "Permissions reload failed, previous rules kept : {0}"),
    /** No permissions file is configured or present: every authenticated user may do everything. */
    SEC_1004("SEC-1004", "Authorization off : {0}"),

    HA_1001("HA-1001", "Role changed : {0} : node {1} is now {2}"),
    HA_1002("HA-1002", "Designated primary : node {0} : {1}"),
    HA_1003("HA-1003", "Environment restart : node {0} : {1}"),
    HA_1004("HA-1004", "Rolled back : node {0} : {1}"),
    HA_1005("HA-1005", "Quorum : node {0} : {1}"),
    HA_1006("HA-1006", "Network restore : node {0} : {1}"),
    HA_1007("HA-1007", "Hand-over : node {0} : {1}"),
    /**
     * The replication channel refused a peer (an untrusted or unlisted certificate, TLS against plain TCP); {1} is
     * "from ADDRESS" (it connected to this node) or "to ADDRESS" (this node connected), {2} why, for operators.
     */
    HA_1008("HA-1008", "Replication connection refused : node {0} : {1} : {2}");

    private final String code;
    private final String pattern;

    LogCode(String code, String pattern) {
        this.code = code;
        this.pattern = pattern;
    }

    public String code() {
        return code;
    }

    /** The full line: {@code CODE : text}. */
    public String format(Object... args) {
        return code + " : " + new MessageFormat(pattern, java.util.Locale.ROOT).format(args);
    }
}
