package dev.vsm.server.route;

import java.util.List;

/**
 * A page of a list and how many entries the whole list has: answered as pve answers it, the page
 * as {@code data} and the count beside it as {@code total} (pve's {@code set_result_attrib}).
 */
public record Counted(List<?> data, long total) {
    public Counted {
        data = List.copyOf(data);
    }
}
