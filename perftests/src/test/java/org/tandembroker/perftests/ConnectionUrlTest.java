package org.tandembroker.perftests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.qpid.jms.provider.Provider;
import org.apache.qpid.jms.provider.ProviderFactory;
import org.junit.jupiter.api.Test;

/**
 * The spec's connection URL form translated into Qpid JMS URIs, as a specification: what each option becomes, and
 * that every option the translation cannot honour is refused with a message naming it. Every translated URI is
 * also handed to Qpid JMS's own provider factories (no connection is made), which refuse misspelt options.
 */
class ConnectionUrlTest {

    @Test
    void theBriefsExampleBecomesAFailoverUriWithTheSamePatience() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://user:pass@clientid/vhost?brokerlist='tcp://h1:5672"
                + "?connectdelay='1000'&retries='3';tcp://h2:5672'&failover='roundrobin?cyclecount='30''");

        assertThat(url.uri()).isEqualTo("failover:(amqp://h1:5672?amqp.vhost=vhost,amqp://h2:5672?amqp.vhost=vhost)"
                + "?failover.maxReconnectAttempts=120&failover.initialReconnectDelay=0"
                + "&failover.reconnectDelay=1000&failover.useReconnectBackOff=false");
        assertThat(url.user()).isEqualTo("user");
        assertThat(url.password()).isEqualTo("pass");
        assertThat(url.clientId()).isEqualTo("clientid");
        assertThat(url.virtualHost()).isEqualTo("vhost");
        assertThat(url.notes()).anyMatch(note -> note.contains("retries differ"));
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void theSpecsHaExampleWithThreeBrokersKeepsTheirOrderMasterFirst() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://guest:guest@clientid/test?brokerlist="
                + "'tcp://localhost:5672?connectdelay='2000'&retries='3';"
                + "tcp://localhost:5671?connectdelay='2000'&retries='3';"
                + "tcp://localhost:5673?connectdelay='2000'&retries='3''"
                + "&failover='roundrobin?cyclecount='30''");

        assertThat(url.uri()).isEqualTo("failover:(amqp://localhost:5672?amqp.vhost=test,"
                + "amqp://localhost:5671?amqp.vhost=test,amqp://localhost:5673?amqp.vhost=test)"
                + "?failover.maxReconnectAttempts=120&failover.initialReconnectDelay=0"
                + "&failover.reconnectDelay=2000&failover.useReconnectBackOff=false");
        assertThat(url.notes()).isEmpty();
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void cycleCountAloneIsTheNumberOfPassesOverTheList() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://guest:guest@test/default?brokerlist='tcp://a:5672;tcp://b:5673'"
                + "&failover='roundrobin?cyclecount='5''");

        assertThat(url.uri()).isEqualTo("failover:(amqp://a:5672?amqp.vhost=default,amqp://b:5673?amqp.vhost=default)"
                + "?failover.maxReconnectAttempts=5");
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void withoutCycleCountOrRetriesQpidJmsKeepsReconnectingAndTheNotesSaySo() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://guest:guest@test/?brokerlist='tcp://localhost'");

        assertThat(url.uri()).isEqualTo("failover:(amqp://localhost:5672)");
        assertThat(url.virtualHost()).isNull();
        assertThat(url.notes()).anyMatch(note -> note.contains("reconnect forever"));
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void userInfoIsPercentDecodedAndNeverPutIntoTheUri() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://ali%40ce:p%40ss%3Aw/rd@/default"
                + "?brokerlist='tcp://127.0.0.1:5672'");

        assertThat(url.user()).isEqualTo("ali@ce");
        assertThat(url.password()).isEqualTo("p@ss:w/rd");
        assertThat(url.clientId()).isNull();
        assertThat(url.uri()).doesNotContain("ali").doesNotContain("ss");
    }

    @Test
    void transportOptionsAndPrefetchAreTranslated() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://u:p@c/v?maxprefetch='50'&brokerlist='tcp://[::1]:5673"
                + "?connecttimeout='3000'&tcp_nodelay='false''");

        assertThat(url.uri()).isEqualTo("failover:(amqp://[::1]:5673?amqp.vhost=v&transport.connectTimeout=3000"
                + "&transport.tcpNoDelay=false)?jms.prefetchPolicy.all=50");
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void singleBrokerUsesTheFirstBrokerWithItsRetries() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://u:p@c/v?brokerlist='tcp://h1:5672?retries='2'&connectdelay='500';"
                + "tcp://h2:5672'&failover='singlebroker'");

        assertThat(url.uri()).isEqualTo("failover:(amqp://h1:5672?amqp.vhost=v)?failover.maxReconnectAttempts=3"
                + "&failover.initialReconnectDelay=0&failover.reconnectDelay=500&failover.useReconnectBackOff=false");
        assertThat(url.notes()).anyMatch(note -> note.contains("first broker"));
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void noFailoverIsAPlainAmqpUriOfTheFirstBroker() throws Exception {
        ConnectionUrl url = ConnectionUrl.of("amqp://u:p@c/v?brokerlist='tcp://h1:5672?retries='2''"
                + "&failover='nofailover'");

        assertThat(url.uri()).isEqualTo("amqp://h1:5672?amqp.vhost=v");
        assertThat(url.notes()).anyMatch(note -> note.contains("no effect"));
        assertAcceptedByQpidJms(url.uri());
    }

    @Test
    void qpidJmsUrisAreUsedAsTheyAre() {
        for (String uri : new String[] {"amqp://localhost:5672", "amqps://broker:5671?transport.trustAll=true",
                "failover:(amqp://h1:5672,amqp://h2:5672)?failover.maxReconnectAttempts=10"}) {
            ConnectionUrl url = ConnectionUrl.of(uri);
            assertThat(url.uri()).isEqualTo(uri);
            assertThat(url.user()).isNull();
            assertThat(ConnectionUrl.isSpecForm(uri)).isFalse();
        }
    }

    @Test
    void theBenchmarksOwnOptionsGoOnTheFailoverUriNotOnTheLastNestedOne() {
        String uri = ConnectionUrl.of("amqp://u:p@c/v?brokerlist='tcp://h1:5672;tcp://h2:5672'").uri();

        assertThat(Clients.withOption(uri, "jms.forceSyncSend=true"))
                .isEqualTo("failover:(amqp://h1:5672?amqp.vhost=v,amqp://h2:5672?amqp.vhost=v)?jms.forceSyncSend=true");
        assertThat(Clients.withOption("failover:(amqp://h1:5672)?failover.reconnectDelay=5", "jms.x=1"))
                .isEqualTo("failover:(amqp://h1:5672)?failover.reconnectDelay=5&jms.x=1");
        assertThat(Clients.withOption("amqp://h1:5672", "jms.x=1")).isEqualTo("amqp://h1:5672?jms.x=1");
    }

    // ------------------------------------------------------------------ refused

    @Test
    void tlsOptionsAreRefusedNamingTheOption() {
        assertRefused("amqp://u:p@c/v?ssl='true'&brokerlist='tcp://h1:5672'", "'ssl'", "amqps://");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5671?ssl='true'&trust_store='/x.jks''", "'ssl'", "TLS");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5671?trust_store='/x.jks''", "'trust_store'", "TLS");
        assertRefused("amqp://u:p@c/v?brokerlist='ssl://h1:5671'", "'ssl://'", "tcp://");
    }

    @Test
    void saslOptionsAreRefusedNamingTheOption() {
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?sasl_mechs='GSSAPI''", "'sasl_mechs'",
                "amqp.saslMechanisms");
        assertRefused("amqp://u:p@c/v?sasl_mechs='PLAIN'&brokerlist='tcp://h1:5672'", "'sasl_mechs'", "SASL");
    }

    @Test
    void unknownOptionsAreRefusedNamingTheOption() {
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&sync_persistence='true'", "'sync_persistence'",
                "brokerlist, failover and maxprefetch");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?heartbeat='5''", "'heartbeat'", "retries");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&failover='singlebroker?cyclecount='3''",
                "'cyclecount'", "no options");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&failover='roundrobin?retries='3''", "'retries'",
                "cyclecount only");
    }

    @Test
    void failoverExchangeAndUnknownMethodsAreRefused() {
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&failover='failover_exchange'",
                "'failover='failover_exchange''", "no equivalent");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&failover='random'", "'failover='random''",
                "roundrobin, singlebroker, nofailover");
    }

    @Test
    void malformedQuotingIsRefusedSayingWhere() {
        assertRefused("amqp://u:p@c/v?brokerlist=tcp://h1:5672", "'brokerlist'", "single quotes");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672", "'brokerlist'", "unclosed quote");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?retries='3''x", "after option brokerlist",
                "unbalanced quotes");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&failover='roundrobin?cyclecount='30'",
                "'failover'", "unclosed quote");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&brokerlist='tcp://h2:5672'", "'brokerlist'",
                "twice");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672'&flag", "'flag'", "not an option");
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?retries='three''", "'retries'", "whole number");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?connectdelay='-5''", "'connectdelay'",
                "non-negative");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:5672?tcp_nodelay='yes''", "'tcp_nodelay'",
                "true nor false");
        assertRefused("amqp://u:p@c/v?brokerlist='tcp://h1:port'", "'port'", "not a port number");
        assertRefused("amqp://u:p@c/v?brokerlist='h1:5672'", "h1:5672", "no scheme");
        assertRefused("amqp://u:p@c/v?failover='roundrobin'", "no brokerlist");
        assertRefused("amqp://u:p@c?brokerlist='tcp://h1:5672'", "'/'", "virtual host");
        assertRefused("amqp://u:p%4@c/v?brokerlist='tcp://h1:5672'", "password", "hex digits");
    }

    @Test
    void urlsThatAreNeitherFormAreRefused() {
        assertRefused("http://h1:5672", "neither a Qpid JMS URI");
        assertRefused("tcp://h1:5672", "neither a Qpid JMS URI");
        assertRefused("failover:amqp://h1:5672", "parentheses");
        assertRefused(" ", "empty");
    }

    private static void assertRefused(String url, String... messageParts) {
        assertThatThrownBy(() -> ConnectionUrl.of(url)).as(url)
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(messageParts));
    }

    /** Qpid JMS's factories apply every option of the URI (unknown ones are refused); nothing connects. */
    private static void assertAcceptedByQpidJms(String uri) throws Exception {
        new JmsConnectionFactory(uri);
        Provider provider = ProviderFactory.create(new URI(uri));
        provider.close();
        if (uri.startsWith("failover:(")) {
            String nested = uri.substring("failover:(".length(), uri.lastIndexOf(')'));
            for (String one : nested.split(",")) {
                Provider amqp = ProviderFactory.create(new URI(one));
                amqp.close();
            }
        }
    }
}
