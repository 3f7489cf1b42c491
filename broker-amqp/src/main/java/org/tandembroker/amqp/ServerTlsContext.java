package org.tandembroker.amqp;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
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
        Path file = etcDirectory == null ? tls.keyStore() : etcDirectory.resolve(tls.keyStore());
        char[] password = tls.keyStorePassword() == null ? new char[0] : tls.keyStorePassword().toCharArray();
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore keyStore = KeyStore.getInstance(tls.keyStoreType());
            keyStore.load(in, password);
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keyStore, password);
            return SslContextBuilder.forServer(keyManagers).sslProvider(SslProvider.JDK).build();
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot use key store " + file + " (type " + tls.keyStoreType()
                    + ") for an amqps listener: " + e.getMessage(), e);
        }
    }
}
