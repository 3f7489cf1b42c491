package org.tandembroker.amqp;

import java.nio.file.Path;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.util.Optional;
import javax.net.ssl.TrustManagerFactory;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.tandembroker.core.config.ClientCertificateConfig;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.ReloadingKeyManager;

/**
 * Builds the server {@link SslContext} of an amqps listener from its key store file, through a
 * {@link ReloadingKeyManager}: a replaced key store file is loaded again at the next handshake (BRK-1009), so that a
 * renewed certificate needs no restart.
 */
final class ServerTlsContext {
    private ServerTlsContext() {
    }

    /**
     * @param etcDirectory where a relative key store path resolves (may be null: then relative to the work dir)
     * @throws IllegalArgumentException naming the key store when it cannot be read
     */
    static SslContext from(TlsConfig tls, Path etcDirectory, String listenerName, OperationalLog log) {
        return from(tls, Optional.empty(), etcDirectory, listenerName, log);
    }

    /**
     * With {@code clientCertificates}, TLS asks clients for a certificate that the trust store's authorities
     * signed (optional or required).
     */
    static SslContext from(TlsConfig tls, Optional<ClientCertificateConfig> clientCertificates, Path etcDirectory,
            String listenerName, OperationalLog log) {
        Path file = etcDirectory == null ? tls.keyStore() : etcDirectory.resolve(tls.keyStore());
        char[] password = tls.keyStorePassword() == null ? new char[0] : tls.keyStorePassword().toCharArray();
        SslContextBuilder builder;
        try {
            ReloadingKeyManager keys = new ReloadingKeyManager(file, tls.keyStoreType(), password,
                    "amqps listener " + listenerName, line -> log.log(LogCode.BRK_1009, line));
            builder = SslContextBuilder.forServer(keys).sslProvider(SslProvider.JDK);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot use key store " + file + " (type " + tls.keyStoreType()
                    + ") for an amqps listener: " + e.getMessage(), e);
        }
        if (clientCertificates.isPresent()) {
            ClientCertificateConfig clients = clientCertificates.get();
            Path trustFile = etcDirectory == null ? clients.trustStore() : etcDirectory.resolve(clients.trustStore());
            try (InputStream in = Files.newInputStream(trustFile)) {
                KeyStore trustStore = KeyStore.getInstance(clients.trustStoreType());
                trustStore.load(in, clients.trustStorePassword().toCharArray());
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(trustStore);
                builder.trustManager(trust).clientAuth(clients.required() ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
            } catch (Exception e) {
                throw new IllegalArgumentException("cannot use trust store " + trustFile + " (type "
                        + clients.trustStoreType() + ") for client certificates: " + e.getMessage(), e);
            }
        }
        try {
            return builder.build();
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot build the TLS context of an amqps listener: "
                    + e.getMessage(), e);
        }
    }
}
