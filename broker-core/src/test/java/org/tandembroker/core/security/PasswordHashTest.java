package org.tandembroker.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PasswordHashTest {

    @Test
    void aHashRoundTripsThroughItsEncodedFormAndMatchesItsPassword() {
        String encoded = PasswordHash.create("s3cret".toCharArray()).encode();

        PasswordHash decoded = PasswordHash.decode(encoded);

        assertThat(decoded.matches("s3cret".toCharArray())).isTrue();
        assertThat(decoded.encode()).isEqualTo(encoded);
    }

    @Test
    void theEncodedFormIsOneScramCredentialPerMechanism() {
        String encoded = PasswordHash.create("s3cret".toCharArray()).encode();

        String key256 = "[A-Za-z0-9+/]{43}=";
        String key512 = "[A-Za-z0-9+/]{86}==";
        assertThat(encoded).matches("scram-sha-256:" + PasswordHash.DEFAULT_ITERATIONS + ":[A-Za-z0-9+/]{22}==:"
                + key256 + ":" + key256 + ":scram-sha-512:" + PasswordHash.DEFAULT_ITERATIONS
                + ":[A-Za-z0-9+/]{22}==:" + key512 + ":" + key512);
    }

    @Test
    void anEntryOfTheEarlierFormStillMatchesItsPasswordButServesNoScram() {
        String encoded = PasswordHash.createLegacy("s3cret".toCharArray(), 1000).encode();

        PasswordHash decoded = PasswordHash.decode(encoded);

        assertThat(encoded).startsWith("pbkdf2-sha256:1000:");
        assertThat(decoded.matches("s3cret".toCharArray())).isTrue();
        assertThat(decoded.matches("other".toCharArray())).isFalse();
        assertThat(decoded.plainOnly()).isTrue();
        assertThat(decoded.scram(ScramMechanism.SHA_256)).isEmpty();
        assertThat(PasswordHash.create("s3cret".toCharArray(), 1000).plainOnly()).isFalse();
    }

    @Test
    void aWrongPasswordDoesNotMatch() {
        PasswordHash hash = PasswordHash.create("s3cret".toCharArray());

        assertThat(hash.matches("s3cret ".toCharArray())).isFalse();
        assertThat(hash.matches("S3cret".toCharArray())).isFalse();
        assertThat(hash.matches(new char[0])).isFalse();
    }

    @Test
    void theSamePasswordGetsADifferentSaltEachTime() {
        String first = PasswordHash.create("s3cret".toCharArray()).encode();
        String second = PasswordHash.create("s3cret".toCharArray()).encode();

        assertThat(first).isNotEqualTo(second);
    }

    @Test
    void aTamperedHashDoesNotMatch() {
        String[] parts = PasswordHash.createLegacy("s3cret".toCharArray(), 1000).encode().split(":");
        byte[] hash = Base64.getDecoder().decode(parts[3]);
        hash[0] ^= 1;
        String tampered = String.join(":", parts[0], parts[1], parts[2], Base64.getEncoder().encodeToString(hash));

        assertThat(PasswordHash.decode(tampered).matches("s3cret".toCharArray())).isFalse();
    }

    @Test
    void aTamperedSaltOrIterationCountDoesNotMatch() {
        String[] parts = PasswordHash.createLegacy("s3cret".toCharArray(), 1000).encode().split(":");
        byte[] salt = Base64.getDecoder().decode(parts[2]);
        salt[15] ^= 1;
        String otherSalt = String.join(":", parts[0], parts[1], Base64.getEncoder().encodeToString(salt), parts[3]);
        String otherIterations = String.join(":", parts[0], "1001", parts[2], parts[3]);

        assertThat(PasswordHash.decode(otherSalt).matches("s3cret".toCharArray())).isFalse();
        assertThat(PasswordHash.decode(otherIterations).matches("s3cret".toCharArray())).isFalse();
    }

    @Test
    void aNonAsciiPasswordRoundTrips() {
        PasswordHash hash = PasswordHash.decode(PasswordHash.create("pässwörd-密码".toCharArray()).encode());

        assertThat(hash.matches("pässwörd-密码".toCharArray())).isTrue();
        assertThat(hash.matches("passwort-密码".toCharArray())).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "guest",
        "sha256:20000:AAAAAAAAAAAAAAAAAAAAAA==:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:many:AAAAAAAAAAAAAAAAAAAAAA==:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:0:AAAAAAAAAAAAAAAAAAAAAA==:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:2000000000:AAAAAAAAAAAAAAAAAAAAAA==:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:20000:not base64!:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:20000:AAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        "pbkdf2-sha256:20000:AAAAAAAAAAAAAAAAAAAAAA==:AAAA",
        "pbkdf2-sha256:20000:AAAAAAAAAAAAAAAAAAAAAA==:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:x",
    })
    void rejectsMalformedEncodingsWithoutEchoingThem(String encoded) {
        assertThatIllegalArgumentException().isThrownBy(() -> PasswordHash.decode(encoded))
                .withMessageNotContaining("AAAAAAAA");
    }

    @Test
    void toStringDoesNotRevealTheHash() {
        PasswordHash hash = PasswordHash.create("s3cret".toCharArray());

        assertThat(hash.toString()).isEqualTo("scram-sha-256+scram-sha-512:" + PasswordHash.DEFAULT_ITERATIONS
                + ":...");
    }
}
