package org.tandembroker.core.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for tests, made in this JVM (EC P-256, SHA256withECDSA, valid from an hour ago for three days): an
 * authority, keys it signs or self-signed ones, written as the JDK's {@code keytool} would write them (a PKCS12 key
 * store whose key entry holds the chain and which also holds the authority as a trusted entry; a JKS trust store,
 * which JE can read without a password). A keytool process per step cost seconds each on a busy machine; this costs
 * milliseconds. Names are given as Java prints them ({@code CN=node-1, O=Tandem Test}) and encoded as keytool's
 * {@code -dname} encodes them, so that Java prints them back the same way. Only for tests.
 */
public final class TestCertificates {
    private static final SecureRandom RANDOM = new SecureRandom();

    private TestCertificates() {
    }

    /** A key and its certificate chain (the key's certificate first). */
    public record Issued(PrivateKey key, X509Certificate[] chain) {
        public X509Certificate certificate() {
            return chain[0];
        }

        /**
         * Writes a PKCS12 key store: the key as {@code alias} with its chain, and every other certificate of the
         * chain as a trusted entry (as {@code keytool -importcert} leaves them).
         */
        public Path writePkcs12(Path file, String alias, String password) {
            try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry(alias, key, password.toCharArray(), chain);
                for (int i = 1; i < chain.length; i++) {
                    store.setCertificateEntry("issuer-" + i, chain[i]);
                }
                return write(store, file, password);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException("cannot write " + file, e);
            }
        }
    }

    /** An authority that signs certificates. */
    public static final class Authority {
        private final Issued self;

        private Authority(Issued self) {
            this.self = self;
        }

        public X509Certificate certificate() {
            return self.certificate();
        }

        /** A certificate for {@code name} (e.g. {@code CN=node-1, O=Tandem Test}) signed by this authority. */
        public Issued issue(String name) {
            KeyPair pair = newKeyPair();
            X509Certificate certificate = sign(name, pair, self.certificate().getSubjectX500Principal(), self.key(),
                    false);
            return new Issued(pair.getPrivate(), new X509Certificate[] {certificate, self.certificate()});
        }

        /** Writes the authority's certificate as PEM (what {@code keytool -exportcert -rfc} writes). */
        public Path writeCertificate(Path file) {
            return writePem(certificate(), file);
        }

        /** The authority's own key store (its key and self-signed certificate), to sign with elsewhere. */
        public Path writePkcs12(Path file, String alias, String password) {
            return self.writePkcs12(file, alias, password);
        }
    }

    /** A new self-signed authority named {@code name}. */
    public static Authority authority(String name) {
        KeyPair pair = newKeyPair();
        X509Certificate certificate = sign(name, pair, new X500Principal(name), pair.getPrivate(), true);
        return new Authority(new Issued(pair.getPrivate(), new X509Certificate[] {certificate}));
    }

    /** A self-signed certificate for {@code name} (not an authority). */
    public static Issued selfSigned(String name) {
        KeyPair pair = newKeyPair();
        X509Certificate certificate = sign(name, pair, new X500Principal(name), pair.getPrivate(), false);
        return new Issued(pair.getPrivate(), new X509Certificate[] {certificate});
    }

    /** A trust store of {@code type} (JKS or PKCS12) holding {@code certificates} as trusted entries. */
    public static Path writeTrustStore(Path file, String type, String password, Certificate... certificates) {
        try {
            KeyStore store = KeyStore.getInstance(type);
            store.load(null, null);
            for (int i = 0; i < certificates.length; i++) {
                store.setCertificateEntry("trusted-" + i, certificates[i]);
            }
            return write(store, file, password);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot write " + file, e);
        }
    }

    /** Writes {@code certificate} as PEM. */
    public static Path writePem(X509Certificate certificate, Path file) {
        try {
            String pem = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            return file;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads a certificate written by {@link #writePem} (or by keytool). */
    public static X509Certificate readCertificate(Path file) {
        try (var in = Files.newInputStream(file)) {
            return (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read a certificate from " + file, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path write(KeyStore store, Path file, String password) throws IOException,
            GeneralSecurityException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate sign(String name, KeyPair subject, X500Principal issuer, PrivateKey issuerKey,
                                        boolean authority) {
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                new BigInteger(64, RANDOM).abs().add(BigInteger.ONE), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(3))), new X500Principal(name), subject.getPublic());
        try {
            if (authority) {
                builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
                builder.addExtension(Extension.keyUsage, true,
                        new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
            }
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (IOException | OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a certificate for " + name, e);
        }
    }
}
