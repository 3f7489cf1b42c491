package org.tandembroker.amqp;

import java.nio.file.Path;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.tandembroker.core.config.TlsConfig;
import org.tandembroker.core.oplog.LogCode;
import org.tandembroker.core.oplog.OperationalLog;
import org.tandembroker.core.security.ReloadingKeyManager;

/**
 * Builds the server {@link SslContext} of an amqps listener from its key store file, through a
 * {@link ReloadingKeyManager}: a replaced key store file is loaded again at the next handshake (BRK-1008), so that a
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
        Path file = etcDirectory == null ? tls.keyStore() : etcDirectory.resolve(tls.keyStore());
        char[] password = tls.keyStorePassword() == null ? new char[0] : tls.keyStorePassword().toCharArray();
        try {
            ReloadingKeyManager keys = new ReloadingKeyManager(file, tls.keyStoreType(), password,
                    "amqps listener " + listenerName, line -> log.log(LogCode.BRK_1008, line));
            return SslContextBuilder.forServer(keys).sslProvider(SslProvider.JDK).build();
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot use key store " + file + " (type " + tls.keyStoreType()
                    + ") for an amqps listener: " + e.getMessage(), e);
        }
    }
}
