package dev.vsm.server.endpoint;

import dev.vsm.api.PruneBackups;
import dev.vsm.api.PruneMark;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Privilege;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.server.task.Tasks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code GET|DELETE /nodes/{node}/storage/{storage}/prunebackups}: pve's prune preview and prune
 * ({@code vsm prune-backups} with and without {@code --dry-run}), with {@code prune-backups} (pve's
 * retention property string; absent: the storage's), {@code type} and {@code vmid}.
 */
public final class Prunes {
    private static final String PATH = "/nodes/{node}/storage/{storage}/prunebackups";
    private static final Set<String> PARAMS = Set.of("node", "storage", "prune-backups", "type", "vmid");

    private final Tasks tasks;

    public Prunes(Tasks tasks) {
        this.tasks = tasks;
    }

    public List<Route> routes() {
        return List.of(Route.get(PATH, PARAMS, this::preview), Route.delete(PATH, PARAMS, this::prune));
    }

    /** pve's {@code dryrun}: every backup considered with its mark; {@code Datastore.Audit} or {@code AllocateSpace}. */
    private Object preview(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.AUDIT, Privilege.ALLOCATE_SPACE);
        PruneBackups prune = request(call, storage).dryRun(true);
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, storage);
            return vsm.pruneBackups(prune).stream().map(Prunes::item).toList();
        }
    }

    /**
     * pve's {@code delete}: prunes as a task ({@code prunebackups}, id {@code [VMID@]STORAGE}) and
     * returns its UPID. pve asks {@code Datastore.Allocate}, or with a {@code vmid}
     * {@code AllocateSpace} and the guest's {@code VM.Backup}; vsm has no guest privileges and asks
     * {@code Datastore.Allocate}. The options, the storage and its backup content are checked first
     * (a preview) and refused with 400; a removal that fails fails the task.
     */
    private Object prune(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.ALLOCATE);
        PruneBackups prune = request(call, storage);
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, storage);
            vsm.pruneBackups(prune.dryRun(true));
            String id = (prune.vmid() == null ? "" : prune.vmid() + "@") + storage;
            return tasks.start(vsm.nodeName(), "prunebackups", id, call.subject())
                    .run(task -> {
                        for (PruneMark m : vsm.pruneBackups(prune)) {
                            if (m.mark().equals("remove")) {
                                task.log("removing backup '" + m.volid() + "'");
                            }
                        }
                    });
        }
    }

    private static PruneBackups request(Call call, String storage) {
        return PruneBackups.of(storage)
                .keep(call.param("prune-backups"))
                .vmid(call.vmid("vmid"))
                .type(call.param("type"));
    }

    /** pve's item: {@code volid}, {@code ctime}, {@code mark}, {@code type}, and {@code vmid} when known. */
    private static Map<String, Object> item(PruneMark m) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put("volid", m.volid());
        item.put("ctime", m.ctime());
        item.put("mark", m.mark());
        item.put("type", m.type());
        if (m.vmid() != null) {
            item.put("vmid", m.vmid());
        }
        return item;
    }
}
