package dev.vsm.t.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A client of {@code vsm serve}: Java's HttpClient over real HTTPS, trusting the server's certificate alone. */
public final class ApiClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String base;

    public ApiClient(Path certificate, int port) {
        this.base = "https://127.0.0.1:" + port + "/api2/json";
        http = HttpClient.newBuilder()
                .sslContext(trusting(certificate))
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** TLS that trusts the certificate in this PEM file alone (the server's self-signed one). */
    public static SSLContext trusting(Path certificate) {
        try (InputStream in = Files.newInputStream(certificate)) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry(
                    "vsm", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A response: its status, its body, and the body as JSON (null when empty). */
    public record Reply(int status, String body) {
        public JsonNode json() {
            try {
                return body.isEmpty() ? null : JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public JsonNode data() {
            return json().get("data");
        }
    }

    public Reply get(String token, String path) {
        return send(token, HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    public Reply delete(String token, String path) {
        return send(token, HttpRequest.newBuilder(URI.create(base + path)).DELETE());
    }

    /** A form POST, as proxmoxer sends it. */
    public Reply post(String token, String path, String form) {
        return form(token, "POST", path, form);
    }

    /** A form PUT, as proxmoxer sends it. */
    public Reply put(String token, String path, String form) {
        return form(token, "PUT", path, form);
    }

    private Reply form(String token, String method, String path, String form) {
        return send(
                token,
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .method(method, HttpRequest.BodyPublishers.ofString(form)));
    }

    /**
     * A request with these headers and no token ({@code Cookie: PVEAuthCookie=...},
     * {@code CSRFPreventionToken}); {@code form} null: no body.
     */
    public Reply send(String method, String path, String form, java.util.Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path));
        headers.forEach(request::header);
        if (form == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/x-www-form-urlencoded")
                    .method(method, HttpRequest.BodyPublishers.ofString(form));
        }
        return send(null, request);
    }

    /**
     * A {@code multipart/form-data} POST as proxmoxer sends an upload: {@code fields} first, then
     * the file in the part named {@code filename} under {@code fileName}. {@code chunked}: sent
     * without a {@code Content-Length}, as a stream.
     */
    public Reply upload(
            String token,
            String path,
            java.util.Map<String, String> fields,
            String fileName,
            byte[] file,
            boolean chunked) {
        String boundary = "vsmtest" + Long.toHexString(System.nanoTime());
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
        fields.forEach((name, value) -> body.writeBytes(
                ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value + "\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\""
                        + fileName + "\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        body.writeBytes(file);
        body.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        byte[] bytes = body.toByteArray();
        HttpRequest.BodyPublisher publisher = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(bytes))
                : HttpRequest.BodyPublishers.ofByteArray(bytes);
        return send(
                token,
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(publisher));
    }

    /** {@code token} is {@code USER@REALM!NAME=SECRET}, or a whole header value when it has a space; null: none. */
    private Reply send(String token, HttpRequest.Builder request) {
        if (token != null) {
            request.header("Authorization", token.contains(" ") ? token : "PVEAPIToken=" + token);
        }
        try {
            HttpResponse<String> r =
                    http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
