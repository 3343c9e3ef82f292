package dev.vsm.server.route;

import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Permissions;
import dev.vsm.server.access.Privilege;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeId;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** One request as an endpoint sees it: its path's and query's (or form's) parameters, who made it, and vsm. */
public final class Call {
    private final Map<String, String> params;
    private final Permissions who;
    private final Supplier<VsmStorage> vsm;
    private final Route route;
    private final Map<String, String> path;
    private final RequestBody body;

    Call(
            Map<String, String> params,
            Permissions who,
            Supplier<VsmStorage> vsm,
            Route route,
            Map<String, String> path,
            RequestBody body) {
        this.params = params;
        this.who = who;
        this.vsm = vsm;
        this.route = route;
        this.path = path;
        this.body = body;
    }

    /** The unread body of an {@link Route#upload} route; null for others. */
    public RequestBody body() {
        return body;
    }

    /** Takes more parameters (a multipart body's fields), refused as the query's are when the route does not take them. */
    public void accept(Map<String, String> more) {
        Router.check(route, path, more);
        for (Map.Entry<String, String> e : more.entrySet()) {
            if (params.putIfAbsent(e.getKey(), e.getValue()) != null && !path.containsKey(e.getKey())) {
                throw ApiException.badParameter(e.getKey(), "given more than once");
            }
        }
    }

    /** The user ({@code USER@REALM}) or token ({@code USER@REALM!TOKENID}) the request was made as. */
    public String subject() {
        return who.subject();
    }

    /** Whether the caller is {@code root@pam} or a token of it without privilege separation. */
    public boolean isRoot() {
        return who.isRoot();
    }

    /** A new {@link VsmStorage} on the configuration as it is now (one per request: it is not thread-safe). */
    public VsmStorage vsm() {
        return vsm.get();
    }

    /** The parameters other than the route's own and the path's: a {@link Route#withProperties()} route's storage properties. */
    public Map<String, String> properties() {
        Map<String, String> others = new LinkedHashMap<>(params);
        others.keySet().removeAll(route.params);
        return others;
    }

    public String param(String name) {
        return params.get(name);
    }

    public String required(String name) {
        String value = params.get(name);
        if (value == null) {
            throw ApiException.badParameter(name, "property is missing and it is not optional");
        }
        return value;
    }

    /** pve's boolean: 1/0, true/false, yes/no, on/off; absent is false. */
    public boolean bool(String name) {
        String value = params.get(name);
        if (value == null) {
            return false;
        }
        switch (value.toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on":
                return true;
            case "0", "false", "no", "off":
                return false;
            default:
                throw ApiException.badParameter(
                        name, "type check ('boolean') failed - got '" + VolumeId.printable(value) + "'");
        }
    }

    /** A whole number of at most 18 digits, not negative (pve's {@code integer} with a minimum of 0); {@code absent} when not given. */
    public long integer(String name, long absent) {
        String value = params.get(name);
        if (value == null) {
            return absent;
        }
        if (!value.matches("[0-9]{1,18}")) {
            throw ApiException.badParameter(
                    name, "type check ('integer') failed - got '" + VolumeId.printable(value) + "'");
        }
        return Long.parseLong(value);
    }

    /** pve's {@code pve-vmid}: 100 to 999999999; null when absent. */
    public Integer vmid(String name) {
        String value = params.get(name);
        if (value == null) {
            return null;
        }
        if (!value.matches("[0-9]{1,9}")) {
            throw ApiException.badParameter(
                    name, "type check ('integer') failed - got '" + VolumeId.printable(value) + "'");
        }
        int vmid = Integer.parseInt(value);
        if (vmid < 100) {
            throw ApiException.badParameter(name, "value must have a minimum value of 100");
        }
        return vmid;
    }

    /** A storage id from the path or a parameter. */
    public String storage(String name) {
        String value = required(name);
        try {
            return VolumeId.checkStorageId(value);
        } catch (RuntimeException e) {
            throw ApiException.badParameter(name, e.getMessage());
        }
    }

    /** pve's {@code pve-storage-content-list}; null when absent. */
    public Set<ContentType> contentList(String name) {
        String value = params.get(name);
        if (value == null) {
            return null;
        }
        Set<ContentType> types = EnumSet.noneOf(ContentType.class);
        for (String id : value.split("[,;\\s]+", -1)) {
            types.add(ContentType.fromId(id)
                    .orElseThrow(() -> ApiException.badParameter(
                            name, "invalid format - invalid content type '" + VolumeId.printable(id) + "'")));
        }
        return types;
    }

    /** Fails with pve's 403 unless the caller holds one of the privileges on the path. */
    public void check(String path, Privilege... anyOf) {
        Set<Privilege> privileges = EnumSet.of(anyOf[0], anyOf);
        if (!who.any(path, privileges)) {
            throw ApiException.forbidden(
                    path, privileges.stream().map(Privilege::pveName).collect(Collectors.joining("|")));
        }
    }

    /** Whether the caller holds one of the privileges on the path. */
    public boolean may(String path, Privilege... anyOf) {
        return who.any(path, EnumSet.of(anyOf[0], anyOf));
    }
}
