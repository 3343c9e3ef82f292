package dev.vsm.server.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link MultipartUpload} hands on a file's bytes exactly, whatever they are, wherever the body's
 * reads split them: a CR, or the start of a boundary, that ends one read of 64 KiB is the parser's
 * own chunk, which the parser releases (releasing it again made the upload fail as "not a
 * well-formed multipart body", as it did for proxmoxer's upload of a template whose bytes fell so).
 */
class MultipartUploadTest {
    private static final String BOUNDARY = "1d6c8bb1d7666b89aff56e5b1ac1e3e0";
    private static final int READ = 64 * 1024;

    @Test
    void aCrAtTheEndOfARead() throws IOException {
        assertRoundTrip("\r".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void theStartOfABoundaryAtTheEndOfARead() throws IOException {
        assertRoundTrip(("\r\n--" + BOUNDARY.substring(0, 10)).getBytes(StandardCharsets.US_ASCII));
    }

    /** A file whose bytes end the body's first read with {@code tail}, which is content after all. */
    private static void assertRoundTrip(byte[] tail) throws IOException {
        byte[] head = ("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nvztmpl\r\n--"
                        + BOUNDARY
                        + "\r\nContent-Disposition: form-data; name=\"filename\"; filename=\"t.tar.gz\"\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] file = new byte[2 * READ];
        Arrays.fill(file, (byte) 'x');
        System.arraycopy(tail, 0, file, READ - head.length - tail.length, tail.length);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(head);
        body.writeBytes(file);
        body.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));

        MultipartUpload upload = MultipartUpload.of(
                new RequestBody(
                        "multipart/form-data; boundary=" + BOUNDARY,
                        body.size(),
                        new ByteArrayInputStream(body.toByteArray())),
                Long.MAX_VALUE);
        assertThat(upload.fieldsBeforeFile()).isEqualTo(Map.of("content", "vztmpl"));
        assertThat(upload.fileName()).isEqualTo("t.tar.gz");
        try (InputStream in = upload.file()) {
            assertThat(in.readAllBytes()).isEqualTo(file);
        }
    }
}
