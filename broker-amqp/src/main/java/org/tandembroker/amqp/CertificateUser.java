package org.tandembroker.amqp;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;
import org.tandembroker.core.config.ClientCertificateConfig;

/** The user a client's verified TLS certificate names: its subject's CN, or its whole subject DN (RFC 2253). */
final class CertificateUser {
    private CertificateUser() {
    }

    /** Empty when the session has no verified peer certificate, or the subject has no CN. */
    static Optional<String> of(SSLSession session, ClientCertificateConfig.UserName mapping) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return Optional.empty();
        }
        return of(certificate.getSubjectX500Principal(), mapping);
    }

    static Optional<String> of(X500Principal subject, ClientCertificateConfig.UserName mapping) {
        String dn = subject.getName(X500Principal.RFC2253);
        if (mapping == ClientCertificateConfig.UserName.DN) {
            return Optional.of(dn);
        }
        try {
            java.util.List<Rdn> rdns = new LdapName(dn).getRdns(); // rightmost first: the most specific CN is last
            for (int i = rdns.size() - 1; i >= 0; i--) {
                if (rdns.get(i).getType().equalsIgnoreCase("CN")) {
                    return Optional.of(String.valueOf(rdns.get(i).getValue()));
                }
            }
        } catch (InvalidNameException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
