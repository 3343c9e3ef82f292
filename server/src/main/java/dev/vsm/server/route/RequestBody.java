package dev.vsm.server.route;

import java.io.InputStream;

/**
 * A request's body as it comes, unread, for an endpoint that streams it ({@link Route#upload}).
 *
 * @param contentType its {@code Content-Type}, or null
 * @param length      its {@code Content-Length}, or -1 when it is sent in chunks
 * @param in          its bytes
 */
public record RequestBody(String contentType, long length, InputStream in) {}
