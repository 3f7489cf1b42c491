package org.tandembroker.core.config;

import java.nio.file.Path;

/**
 * Client certificates on a TLS listener ({@code <clientCertificates>}): TLS asks clients for a certificate signed
 * by the trust store's authorities, and a client that presents one may authenticate with SASL EXTERNAL as the user
 * the certificate names.
 *
 * @param required           true: the TLS handshake fails without a trusted certificate; false: a client without
 *                           one can still authenticate with a password
 * @param trustStore         the authorities (or certificates) trusted to identify clients
 * @param trustStoreType     "PKCS12" or "JKS"
 * @param trustStorePassword the trust store's password
 * @param userName           which part of the certificate's subject is the user name
 */
public record ClientCertificateConfig(boolean required, Path trustStore, String trustStoreType,
                                      String trustStorePassword, UserName userName) {

    /** How a certificate's subject becomes a user name. */
    public enum UserName {
        /** The subject's common name (CN), e.g. {@code app1}. */
        CN,
        /** The whole subject distinguished name as RFC 2253 writes it, e.g. {@code CN=app1,O=Example}. */
        DN
    }

    @Override
    public String toString() {
        return "ClientCertificateConfig[required=" + required + ", trustStore=" + trustStore + ", userName="
                + userName + "]";
    }
}
