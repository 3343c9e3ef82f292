package dev.vsm.server.access;

import java.util.Arrays;
import java.util.Optional;

/** The pve privileges vsm's API checks, by pve's names. */
public enum Privilege {
    AUDIT("Datastore.Audit"),
    ALLOCATE("Datastore.Allocate"),
    ALLOCATE_SPACE("Datastore.AllocateSpace"),
    ALLOCATE_TEMPLATE("Datastore.AllocateTemplate");

    private final String pveName;

    Privilege(String pveName) {
        this.pveName = pveName;
    }

    /** pve's name, e.g. {@code Datastore.Audit}. */
    public String pveName() {
        return pveName;
    }

    public static Optional<Privilege> fromPveName(String name) {
        return Arrays.stream(values()).filter(p -> p.pveName.equals(name)).findFirst();
    }
}
