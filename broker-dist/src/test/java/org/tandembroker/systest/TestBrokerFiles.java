package org.tandembroker.systest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tandembroker.core.security.PasswordHash;

/**
 * Writes a complete broker configuration (broker file, virtual host file, users file) into a directory, the way an
 * operator would, so that tests exercise the real loaders. Users: guest/guest and alice/secret.
 */
public final class TestBrokerFiles {
    private TestBrokerFiles() {
    }

    /** Writes the files and returns the broker file. */
    public static Path write(Path etc, String extraQueues) throws IOException {
        return write(etc, extraQueues, "");
    }

    /** As {@link #write(Path, String)}, with extra child elements of the bdb {@code <store>} element. */
    public static Path write(Path etc, String extraQueues, String extraStoreElements) throws IOException {
        Files.createDirectories(etc);
        Files.writeString(etc.resolve("broker.xml"), """
                <broker>
                  <listeners>
                    <listener name="amqp" host="127.0.0.1" port="0"/>
                  </listeners>
                  <security usersFile="users" anonymous="true"/>
                  <limits maxMessageSize="16MiB" idleTimeout="30s" maxConnections="1000" linkCredit="100"/>
                  <memory messageBudget="8MiB"/>
                  <virtualHosts default="default">
                    <virtualHost name="default" file="default.xml"/>
                  </virtualHosts>
                </broker>
                """);
        Files.writeString(etc.resolve("default.xml"), """
                <virtualHost name="default">
                  <store type="bdb">
                    <storePath>default/store</storePath>
                    <durability>NO_SYNC</durability>
                    <coalescingSync>true</coalescingSync>
                    %s
                  </store>
                  <queues autoCreate="true">
                    <defaults durable="true" maxDeliveries="10" deadLetterQueue="DLQ"/>
                    <queue name="DLQ"/>
                    <queue name="limited" maxDeliveries="3" deadLetterQueue="limited.dlq"/>
                    <queue name="tiny" maxDepthMessages="5"/>
                    %s
                  </queues>
                  <exchanges>
                    <exchange name="news" type="topic" durable="true"/>
                    <exchange name="broadcast" type="fanout" durable="true"/>
                  </exchanges>
                  <bindings>
                    <binding exchange="news" queue="sports" key="news.sports.#"/>
                  </bindings>
                </virtualHost>
                """.formatted(extraStoreElements, extraQueues + "<queue name=\"sports\"/>"));
        Files.writeString(etc.resolve("users"),
                "guest:" + PasswordHash.create("guest".toCharArray()).encode() + "\n"
                        + "alice:" + PasswordHash.create("secret".toCharArray()).encode() + "\n");
        return etc.resolve("broker.xml");
    }
}
