package dev.vsm.server;

import dev.vsm.server.access.AccessException;
import dev.vsm.server.access.PrivateFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The server's certificate and key: PEM files given to {@code vsm serve}, or a self-signed pair made
 * at first start, as pve makes its {@code pve-ssl.pem}, in a directory that only the user vsm runs
 * as may enter (mode 0700, refused otherwise). The pair is made by the JDK's own {@code keytool}
 * (the JDK has no public API that makes a certificate) and kept as PEM: {@code vsm-ssl.pem}, the
 * certificate clients can be told to trust, and {@code vsm-ssl.key} (mode 0600).
 */
public final class Tls {
    /** The self-signed certificate's file in its directory. */
    public static final String CERTIFICATE = "vsm-ssl.pem";

    static final String KEY = "vsm-ssl.key";
    static final char[] NO_PASSWORD = new char[0];

    private Tls() {}

    /** A key store holding the key and its certificate chain, read from PEM files; the key must be its owner's alone. */
    public static KeyStore fromPem(Path certificate, Path key) {
        try {
            PrivateFiles.checkDirectory(key.toAbsolutePath().getParent());
            PrivateFiles.checkPrivateFile(key);
            List<? extends Certificate> chain;
            try (InputStream in = Files.newInputStream(certificate)) {
                chain = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
            }
            if (chain.isEmpty()) {
                throw new AccessException(certificate + " holds no certificate (PEM, BEGIN CERTIFICATE)");
            }
            PrivateKey privateKey = privateKey(key, Files.readString(key, StandardCharsets.US_ASCII));
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("vsm", privateKey, NO_PASSWORD, chain.toArray(Certificate[]::new));
            return store;
        } catch (NoSuchFileException e) {
            throw new AccessException(e.getFile() + " does not exist");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new AccessException(certificate + ", " + key + ": not a certificate and its key: " + e.getMessage());
        }
    }

    private static PrivateKey privateKey(Path file, String pem) throws GeneralSecurityException {
        String begin = "-----BEGIN PRIVATE KEY-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf("-----END PRIVATE KEY-----");
        if (from < 0 || to < from) {
            throw new AccessException(file + " holds no unencrypted PKCS#8 key (BEGIN PRIVATE KEY): convert it with "
                    + "'openssl pkcs8 -topk8 -nocrypt'");
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * The self-signed pair in {@code dir}, made there first when it is missing: the directory is
     * made with mode 0700, and refused when it is not the caller's with that mode.
     */
    public static KeyStore selfSigned(Path dir, String node) {
        try {
            if (Files.notExists(dir)) {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            PrivateFiles.checkPrivateDirectory(dir);
            Path cert = dir.resolve(CERTIFICATE);
            Path key = dir.resolve(KEY);
            if (Files.notExists(cert) || Files.notExists(key)) {
                make(dir, node, cert, key);
            }
            return fromPem(cert, key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void make(Path dir, String node, Path cert, Path key) throws IOException {
        Path p12 = dir.resolve("vsm-ssl.p12.tmp");
        Files.deleteIfExists(p12);
        String password = HexFormat.of().formatHex(random());
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(
                        keytool,
                        "-genkeypair",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "3650",
                        "-alias",
                        "vsm",
                        "-dname",
                        "CN=" + node + ", O=vsm",
                        "-ext",
                        "SAN=dns:" + node + ",dns:localhost,ip:127.0.0.1,ip:::1",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        p12.toString(),
                        "-storepass",
                        password)
                .redirectErrorStream(true)
                .start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("keytool could not make the self-signed certificate: " + output);
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(p12)) {
                store.load(in, password.toCharArray());
            }
            PrivateKey privateKey = (PrivateKey) store.getKey("vsm", password.toCharArray());
            Certificate certificate = store.getCertificate("vsm");
            write(key, "PRIVATE KEY", privateKey.getEncoded());
            write(cert, "CERTIFICATE", certificate.getEncoded());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while keytool ran", e);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read what keytool made: " + e.getMessage(), e);
        } finally {
            Files.deleteIfExists(p12);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private static byte[] random() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private static void write(Path file, String type, byte[] der) throws IOException {
        String pem = "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
        Files.deleteIfExists(file);
        try (var out = Files.newByteChannel(
                file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            out.write(ByteBuffer.wrap(pem.getBytes(StandardCharsets.US_ASCII)));
        }
    }
}
