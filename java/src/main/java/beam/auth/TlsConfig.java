package beam.auth;

import beam.config.Environment;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Optional TLS for node links, with the JDK's own TLS. Every node presents its certificate
 * ({@code --tls-cert}, PEM) and key ({@code --tls-key}, PEM PKCS#8) and trusts only the
 * cluster's CA ({@code --tls-ca}); the head requires client certificates, so both ends are
 * authenticated (mutual TLS), on top of the token. Ray's variables RAY_TLS_SERVER_CERT,
 * RAY_TLS_SERVER_KEY and RAY_TLS_CA_CERT are read when the flags are absent.
 */
public record TlsConfig(Path cert, Path key, Path ca) {
    public TlsConfig {
        if (cert == null || key == null || ca == null) {
            throw new IllegalArgumentException("TLS needs all three of --tls-cert, --tls-key and --tls-ca "
                    + "(or RAY_TLS_SERVER_CERT, RAY_TLS_SERVER_KEY, RAY_TLS_CA_CERT)");
        }
    }

    /** The TLS settings from flags, else Ray's environment variables; null when none is set. */
    public static TlsConfig resolve(String cert, String key, String ca, Environment env) {
        cert = cert != null ? cert : env.get(Environment.TLS_CERT);
        key = key != null ? key : env.get(Environment.TLS_KEY);
        ca = ca != null ? ca : env.get(Environment.TLS_CA);
        if (cert == null && key == null && ca == null) return null;
        return new TlsConfig(cert == null ? null : Path.of(cert), key == null ? null : Path.of(key),
                ca == null ? null : Path.of(ca));
    }

    public SSLContext context() throws IOException {
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Collection<? extends Certificate> chain = cf.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(cert)));
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("beam", privateKey(), new char[0], chain.toArray(Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (Certificate c : cf.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(ca)))) {
                trust.setCertificateEntry("ca" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot load the TLS certificate, key or CA (" + cert + ", " + key + ", " + ca + "): "
                    + e.getMessage(), e);
        }
    }

    private PrivateKey privateKey() throws IOException, GeneralSecurityException {
        String pem = Files.readString(key);
        if (pem.contains("BEGIN RSA PRIVATE KEY") || pem.contains("BEGIN EC PRIVATE KEY")) {
            throw new IOException(key + " is a PKCS#1/SEC1 key; convert it to PKCS#8 with "
                    + "`openssl pkcs8 -topk8 -nocrypt -in " + key + " -out key.pk8.pem`");
        }
        int start = pem.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = pem.indexOf("-----END PRIVATE KEY-----");
        if (start < 0 || end < 0) throw new IOException(key + " holds no PEM 'PRIVATE KEY' (PKCS#8) block");
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(start + 27, end));
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IOException(key + ": unsupported private key type (use RSA, EC or Ed25519)");
    }
}
