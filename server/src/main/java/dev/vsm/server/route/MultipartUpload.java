package dev.vsm.server.route;

import dev.vsm.spi.VolumeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.io.Content;

/**
 * A {@code multipart/form-data} upload read as it comes, as pve's HTTP server reads one: form
 * fields first, then the part named {@code filename} whose {@code Content-Disposition} carries the
 * file's name (as proxmoxer and Ansible send it), its bytes handed on through {@link #file()}
 * without being held (at most one read's worth, 64 KiB, waits in memory). Jetty's parser splits the
 * parts. The whole body is limited to {@code limit} bytes: past it a read fails with 413; fields
 * together to pve's 64 KiB. A body that ends early, is malformed, or has anything after the file
 * fails the file's read, so that a writer of the file sees its end only when the body was whole.
 */
public final class MultipartUpload {
    /** The part that carries the file (pve's {@code filename} parameter). */
    public static final String FILE_PART = "filename";

    private static final int READ = 64 * 1024;
    private static final int MAX_FIELDS = 64 * 1024;
    private static final Pattern DISPOSITION_PARAM =
            Pattern.compile(";\\s*([A-Za-z*]+)\\s*=\\s*(?:\"((?:\\\\\"|[^\"])*)\"|([^;\\s]*))");

    private final InputStream body;
    private final long limit;
    private final MultiPart.Parser parser;
    private final Map<String, String> fields = new LinkedHashMap<>();
    private final Deque<byte[]> fileBytes = new ArrayDeque<>();
    private long read;
    private int fieldBytes;

    // the part being parsed
    private String partName;
    private String partFile;
    private boolean partIsFile;
    private ByteArrayOutputStream partValue;

    private String fileName;
    private boolean fileBegun;
    private boolean fileEnded;
    private boolean complete;
    private RuntimeException failure;

    private MultipartUpload(InputStream body, String boundary, long limit) {
        this.body = body;
        this.limit = limit;
        this.parser = new MultiPart.Parser(boundary, new Listener());
        parser.setMaxParts(16);
    }

    /**
     * The upload in {@code body}: 415 unless it is {@code multipart/form-data} with a boundary,
     * 413 at once when its length is known to be over {@code limit}.
     */
    public static MultipartUpload of(RequestBody body, long limit) {
        String type = body.contentType() == null ? "" : body.contentType();
        if (!type.toLowerCase(Locale.ROOT).startsWith("multipart/form-data")) {
            throw ApiException.of(415, "an upload is multipart/form-data, not '" + VolumeId.printable(type) + "'");
        }
        String boundary = MultiPart.extractBoundary(type);
        if (boundary == null || boundary.isEmpty()) {
            throw ApiException.badRequest("the multipart body has no boundary");
        }
        if (body.length() > limit) {
            throw tooLarge(limit);
        }
        return new MultipartUpload(body.in(), boundary, limit);
    }

    private static ApiException tooLarge(long limit) {
        return ApiException.of(413, "request entity too large (uploads are limited to " + limit + " bytes)");
    }

    /**
     * The form fields before the file, reading up to the file's first bytes; 400 when the body has
     * no file part (or ends before it).
     */
    public Map<String, String> fieldsBeforeFile() {
        while (!fileBegun) {
            if (complete) {
                throw ApiException.badParameter(FILE_PART, "property is missing and it is not optional");
            }
            more();
        }
        return Map.copyOf(fields);
    }

    /** The file's name as the client gave it (the {@code filename} of its part's {@code Content-Disposition}). */
    public String fileName() {
        return fileName;
    }

    /**
     * The file's bytes, read from the body as they are asked for. The end comes only once the body
     * ended well with nothing after the file; else a read fails with an {@link ApiException} (413
     * past the limit, 400 for a body that is cut short or malformed, or has a field after the file).
     */
    public InputStream file() {
        fieldsBeforeFile();
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (len == 0) {
                    return 0;
                }
                while (fileBytes.isEmpty()) {
                    if (fileEnded) {
                        while (!complete) {
                            more();
                        }
                        return -1;
                    }
                    more();
                }
                byte[] head = fileBytes.peekFirst();
                int n = Math.min(len, head.length - headOffset);
                System.arraycopy(head, headOffset, b, off, n);
                headOffset += n;
                if (headOffset == head.length) {
                    fileBytes.removeFirst();
                    headOffset = 0;
                }
                return n;
            }

            private int headOffset;
        };
    }

    /** Reads the next bytes of the body into the parser. */
    private void more() {
        if (failure != null) {
            throw failure;
        }
        // a new buffer each time: nothing the parser may still refer to is overwritten
        byte[] buffer = new byte[READ];
        int n;
        try {
            n = body.read(buffer);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the upload failed: " + e.getMessage(), e);
        }
        if (n < 0) {
            parser.parse(Content.Chunk.EOF);
            if (failure == null && !complete) {
                failure = ApiException.badRequest("the upload ended before its last boundary");
            }
        } else {
            read += n;
            if (read > limit) {
                failure = tooLarge(limit);
            } else {
                // the parser's chunks of it (slices) share its count and are not released by the
                // listener: it is released here, once parsed
                Content.Chunk chunk = Content.Chunk.from(ByteBuffer.wrap(buffer, 0, n), false);
                try {
                    parser.parse(chunk);
                } finally {
                    chunk.release();
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** What Jetty's parser finds, kept as pve's HTTP server keeps it. */
    private final class Listener implements MultiPart.Parser.Listener {
        @Override
        public void onPartBegin() {
            partName = null;
            partFile = null;
            partIsFile = false;
            partValue = new ByteArrayOutputStream();
        }

        @Override
        public void onPartHeader(String name, String value) {
            if (!name.equalsIgnoreCase("Content-Disposition")) {
                return;
            }
            Matcher m = DISPOSITION_PARAM.matcher(value);
            while (m.find()) {
                // as browsers send it (RFC 7578): only a quote is escaped, a backslash is itself
                String v = m.group(2) != null ? m.group(2).replace("\\\"", "\"") : m.group(3);
                switch (m.group(1).toLowerCase(Locale.ROOT)) {
                    case "name" -> partName = v;
                    case "filename" -> partFile = v;
                    default -> {}
                }
            }
        }

        @Override
        public void onPartHeaders() {
            if (partName == null) {
                fail(ApiException.badRequest("a part of the upload has no name"));
                return;
            }
            if (partName.equals(FILE_PART) && partFile != null) {
                if (fileBegun) {
                    fail(ApiException.badParameter(FILE_PART, "given more than once"));
                    return;
                }
                partIsFile = true;
                fileBegun = true;
                fileName = partFile;
            } else if (fileBegun) {
                fail(ApiException.badRequest("the upload has form field '" + VolumeId.printable(partName)
                        + "' after the file: send it " + "before"));
            }
        }

        /**
         * Copies the chunk's bytes and leaves the chunk alone: Jetty 12.1's parser releases the
         * chunks it makes itself (a CR or a boundary's start that turned out to be content) once
         * this returns, and its slices of a read are released with the read (in {@code more()}).
         */
        @Override
        public void onPartContent(Content.Chunk chunk) {
            ByteBuffer bytes = chunk.getByteBuffer();
            if (failure != null || !bytes.hasRemaining()) {
                return;
            }
            byte[] copy = new byte[bytes.remaining()];
            bytes.get(copy);
            if (partIsFile) {
                fileBytes.addLast(copy);
            } else {
                fieldBytes += copy.length;
                if (fieldBytes > MAX_FIELDS) {
                    fail(ApiException.of(413, "the upload's form fields are over 64 KiB"));
                    return;
                }
                partValue.writeBytes(copy);
            }
        }

        @Override
        public void onPartEnd() {
            if (failure != null) {
                return;
            }
            if (partIsFile) {
                fileEnded = true;
            } else if (fields.put(partName, partValue.toString(StandardCharsets.UTF_8)) != null) {
                fail(ApiException.badParameter(partName, "given more than once"));
            }
        }

        @Override
        public void onComplete() {
            complete = true;
        }

        @Override
        public void onFailure(Throwable cause) {
            fail(ApiException.badRequest("the upload is not a well-formed multipart body: " + cause.getMessage()));
        }

        private void fail(RuntimeException e) {
            if (failure == null) {
                failure = e;
            }
        }
    }
}
