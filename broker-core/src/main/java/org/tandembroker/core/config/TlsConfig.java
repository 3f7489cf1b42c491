package org.tandembroker.core.config;

import java.nio.file.Path;

/**
 * Key material for a TLS listener.
 *
 * @param keyStore         the key store file (resolved against etc/)
 * @param keyStoreType     "PKCS12" or "JKS"
 * @param keyStorePassword the key store's password
 */
public record TlsConfig(Path keyStore, String keyStoreType, String keyStorePassword) {
    @Override
    public String toString() {
        return "TlsConfig[keyStore=" + keyStore + ", keyStoreType=" + keyStoreType + "]";
    }
}
