package org.tandembroker.amqp;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.tandembroker.core.config.ClientCertificateConfig;
import org.tandembroker.core.config.TlsConfig;

/** Builds the server {@link SslContext} of an amqps listener from its key store file. */
final class ServerTlsContext {
    private ServerTlsContext() {
    }

    /**
     * @param etcDirectory where a relative key store path resolves (may be null: then relative to the work dir)
     * @throws IllegalArgumentException naming the key store when it cannot be read
     */
    static SslContext from(TlsConfig tls, Path etcDirectory) {
        return from(tls, Optional.empty(), etcDirectory);
    }

    /**
     * With {@code clientCertificates}, TLS asks clients for a certificate that the trust store's authorities
     * signed (optional or required).
     */
    static SslContext from(TlsConfig tls, Optional<ClientCertificateConfig> clientCertificates, Path etcDirectory) {
        Path file = etcDirectory == null ? tls.keyStore() : etcDirectory.resolve(tls.keyStore());
        char[] password = tls.keyStorePassword() == null ? new char[0] : tls.keyStorePassword().toCharArray();
        SslContextBuilder builder;
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore keyStore = KeyStore.getInstance(tls.keyStoreType());
            keyStore.load(in, password);
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keyStore, password);
            builder = SslContextBuilder.forServer(keyManagers).sslProvider(SslProvider.JDK);
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
