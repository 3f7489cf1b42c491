package org.tandembroker.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import org.junit.jupiter.api.Test;
import org.tandembroker.core.frontend.ProtocolFrontEndFactory;

class FrontEndLifecycleTest {

    @Test
    void frontEndIsFoundByServiceLoaderAsAmqp10() {
        assertThat(ServiceLoader.load(ProtocolFrontEndFactory.class))
                .extracting(ProtocolFrontEndFactory::protocol)
                .contains("amqp-1.0");
    }

    @Test
    void closingTheFrontEndClosesEveryConnectionAndTellsTheClients() throws Exception {
        RunningFrontEnd broker = RunningFrontEnd.start();
        try (Connection connection = broker.connectionFactory().createConnection()) {
            CompletableFuture<JMSException> told = new CompletableFuture<>();
            connection.setExceptionListener(told::complete);
            connection.start();

            broker.close();

            assertThat(told.get(10, TimeUnit.SECONDS)).hasMessageContaining("shutting down");
            assertThat(broker.connectionCount()).isZero();
            await().until(() -> broker.virtualHost.deregistrations() == 1);
        }
    }
}
