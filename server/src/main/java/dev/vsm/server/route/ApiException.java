package dev.vsm.server.route;

import java.util.Map;

/**
 * A request that ends in an error, answered as pve's API answers it: the HTTP status, and a body
 * {@code {"data": null, "message": ..., "errors": {...}}} (the {@code errors} only for a bad
 * parameter, pve's "Parameter verification failed.").
 */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final transient Map<String, String> errors;

    ApiException(int status, String message, Map<String, String> errors) {
        super(message);
        this.status = status;
        this.errors = errors == null ? Map.of() : Map.copyOf(errors);
    }

    /** Another status, with its message (501 not implemented, 413 too large, 415 a body's type). */
    public static ApiException of(int status, String message) {
        return new ApiException(status, message, null);
    }

    /** 400: one parameter is wrong. */
    public static ApiException badParameter(String parameter, String message) {
        return new ApiException(400, "Parameter verification failed.", Map.of(parameter, message));
    }

    /** 400: the request cannot be right (a bad volume id, size or name). */
    public static ApiException badRequest(String message) {
        return new ApiException(400, message, null);
    }

    /** 403: pve's permission check failure, naming the path and the privileges asked for. */
    public static ApiException forbidden(String path, String privileges) {
        return new ApiException(403, "Permission check failed (" + path + ", " + privileges + ")", null);
    }

    /** 500: the operation failed (pve's answer to an error that is not a parameter's). */
    public static ApiException failed(String message) {
        return new ApiException(500, message, null);
    }

    public int status() {
        return status;
    }

    public Map<String, String> errors() {
        return errors;
    }
}
