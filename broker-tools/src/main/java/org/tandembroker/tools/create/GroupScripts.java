package org.tandembroker.tools.create;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The scripts of a group made by {@code tandem create DIR --group N}: {@code DIR/start} (every member in the
 * background, its console in {@code <member>/work/console.log}, its pid in {@code <member>/pid}), {@code DIR/stop}
 * (SIGTERM, waiting at most 60 s for each), {@code DIR/status} (each member running or not, and the last role it
 * logged). Each member's own {@code run} script is what {@code start} calls.
 *
 * <p>Stateless.
 */
final class GroupScripts {
    private GroupScripts() {
    }

    static void write(Path dir, List<CreatedDirectory> members, Path tandemHome) {
        String names = members.stream().map(m -> dir.relativize(m.dir()).toString()).collect(Collectors.joining(" "));
        String common = """
                #!/usr/bin/env bash
                # Written by tandem create --group: %s of the loopback group in this directory.
                set -euo pipefail
                here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
                created_by=%s
                export TANDEM_HOME="${TANDEM_HOME:-$created_by}"
                members=(%s)
                running() { [ -f "$here/$1/pid" ] && kill -0 "$(cat "$here/$1/pid")" 2>/dev/null; }
                """;
        String home = CreatedDirectory.shellQuoted(tandemHome.toString());
        String start = common.formatted("starts every member", home, names) + """
                # Build once (when needed) before the members start, not once per member.
                "$TANDEM_HOME/bin/broker" --help >/dev/null
                for m in "${members[@]}"; do
                  if running "$m"; then echo "$m: already running (pid $(cat "$here/$m/pid"))"; continue; fi
                  mkdir -p "$here/$m/work"
                  nohup "$here/$m/run" >"$here/$m/work/console.log" 2>&1 </dev/null &
                  echo $! >"$here/$m/pid"
                  echo "$m: started (pid $!), console $here/$m/work/console.log"
                done
                """;
        String stop = common.formatted("stops every member (SIGTERM, at most 60 s each)", home, names) + """
                for m in "${members[@]}"; do
                  if ! running "$m"; then echo "$m: not running"; rm -f "$here/$m/pid"; continue; fi
                  pid="$(cat "$here/$m/pid")"
                  kill -TERM "$pid"
                  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
                  if kill -0 "$pid" 2>/dev/null; then echo "$m: still running after 60 s (pid $pid)"; exit 1; fi
                  rm -f "$here/$m/pid"
                  echo "$m: stopped"
                done
                """;
        String status = common.formatted("shows each member's state and the last role it logged", home, names) + """
                for m in "${members[@]}"; do
                  log="$here/$m/work/log/broker.log"
                  role="$( { grep -h 'HA-1001 : Role changed' "$log" 2>/dev/null || true; } | tail -n 1 | sed 's/.*: node /node /')"
                  if running "$m"; then state="running (pid $(cat "$here/$m/pid"))"; else state="stopped"; fi
                  echo "$m: $state${role:+; last logged: $role}"
                done
                """;
        try {
            CreatedDirectory.writeScript(dir.resolve("start"), start);
            CreatedDirectory.writeScript(dir.resolve("stop"), stop);
            CreatedDirectory.writeScript(dir.resolve("status"), status);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the group's scripts in " + dir, e);
        }
    }

    static void describe(PrintWriter out, Path dir, List<CreatedDirectory> members, String adminUser) {
        List<CreatedDirectory> brokers = members.stream().filter(m -> m.node() != null).toList();
        NodeSettings first = brokers.get(0).node();
        out.println("Created a group of " + brokers.size() + " in " + dir + " (group " + first.groupName()
                + ", loopback ports picked now; validated)");
        out.printf("  %-8s %-22s %-22s %-22s %s%n", "node", "AMQP", "JMX", "metrics", "replication");
        for (CreatedDirectory m : members) {
            if (m.node() != null) {
                NodeSettings n = m.node();
                out.printf("  %-8s %-22s %-22s %-22s %s%s%n", n.nodeName(), n.amqp(), n.jmx().orElseThrow(),
                        n.metrics().orElseThrow(), n.nodeHostPort().orElseThrow(),
                        n.designatedPrimary() ? "  designated primary" : "");
            } else {
                out.printf("  %-8s %-22s %-22s %-22s %s%n", m.name(), "-", "-", "-", m.arbiter().nodeHostPort());
            }
        }
        out.println("Start:   " + dir.resolve("start"));
        out.println("Stop:    " + dir.resolve("stop"));
        out.println("Status:  " + dir.resolve("status"));
        out.println("Watch:   tail -F " + dir + "/node-*/work/log/broker.log | grep --line-buffered -E 'HA-10|BRK-100'");
        out.println("Clients: failover:(" + brokers.stream().map(b -> "amqp://" + b.node().amqp())
                .collect(Collectors.joining(",")) + ")" + (first.guest() ? "  (user guest, password guest)" : ""));
        if (adminUser != null) {
            out.println("ha-admin: bin/ha-admin status --host 127.0.0.1 --port " + first.jmx().orElseThrow().port()
                    + " --user " + adminUser);
        }
        if (brokers.size() == 2 && members.size() == 2 && !first.designatedPrimary()) {
            out.println("Note: a pair without an arbiter or a designated primary stops serving when either node "
                    + "stops (docs/ha.md, two-node groups).");
        }
    }
}
