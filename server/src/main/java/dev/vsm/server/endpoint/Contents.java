package dev.vsm.server.endpoint;

import dev.vsm.api.CopyVolume;
import dev.vsm.api.ListQuery;
import dev.vsm.api.NewVolume;
import dev.vsm.api.VolumeDetails;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Privilege;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.server.task.Task;
import dev.vsm.server.task.Tasks;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** {@code /nodes/{node}/storage/{storage}/content}: list, alloc, and one volume's info, attributes, copy and free. */
public final class Contents {
    private static final String BASE = "/nodes/{node}/storage/{storage}/content";
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,18})([MG]?)");
    private static final Pattern FORMAT_IN_NAME = Pattern.compile(".*\\.(raw|qcow2|vmdk)");

    private final Tasks tasks;

    /** {@code tasks}: where a copy's and a free's tasks are kept. */
    public Contents(Tasks tasks) {
        this.tasks = tasks;
    }

    public List<Route> routes() {
        return List.of(
                Route.get(BASE, Set.of("node", "storage", "content", "vmid"), this::index),
                Route.post(BASE, Set.of("node", "storage", "filename", "vmid", "size", "format"), this::create),
                Route.get(BASE + "/{volume*}", Set.of("node", "storage", "volume"), this::info),
                Route.put(BASE + "/{volume*}", Set.of("node", "storage", "volume", "notes", "protected"), this::update),
                Route.post(
                        BASE + "/{volume*}", Set.of("node", "storage", "volume", "target", "target_node"), this::copy),
                Route.delete(BASE + "/{volume*}", Set.of("node", "storage", "volume", "delay"), this::delete));
    }

    private Object index(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.AUDIT, Privilege.ALLOCATE_SPACE);
        Set<ContentType> content = call.contentList("content");
        if (content != null && content.size() != 1) {
            throw ApiException.badParameter("content", "give one content type");
        }
        Integer vmid = call.vmid("vmid");
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, storage);
            ListQuery query = ListQuery.of(storage).vmid(vmid);
            if (content != null) {
                query = query.content(content.iterator().next());
            }
            return vsm.list(query).stream().map(Contents::item).toList();
        }
    }

    /**
     * pve's content item: as {@code vsm list --output-format json} gives it, without vsm's own
     * {@code approximate}, and as pve without the fields that have no value (an ISO's {@code vmid},
     * {@code used} and {@code parent}), where vsm list says null.
     */
    static Map<String, Object> item(VolumeInfo v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", v.volid());
        m.put("format", v.format());
        m.put("size", v.size());
        m.put("used", v.used());
        m.put("vmid", v.vmid());
        m.put("content", v.content().id());
        m.put("ctime", v.ctime());
        m.put("parent", v.parent());
        m.values().removeIf(Objects::isNull);
        if (v.backup() != null) {
            m.put("subtype", v.backup().subtype());
            if (v.backup().notes() != null) {
                m.put("notes", v.backup().notes());
            }
            if (v.backup().isProtected()) {
                m.put("protected", 1);
            }
        }
        return m;
    }

    /** pve's {@code POST .../content}: {@code filename}, {@code vmid}, {@code size} (KiB, or with M or G), {@code format}. */
    private Object create(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.ALLOCATE_SPACE);
        String filename = call.required("filename");
        Integer vmid = call.vmid("vmid");
        if (vmid == null) {
            throw ApiException.badParameter("vmid", "property is missing and it is not optional");
        }
        String size = call.required("size");
        Matcher m = SIZE.matcher(size);
        if (!m.matches()) {
            throw ApiException.badParameter("size", "value does not match the regex pattern");
        }
        long kib = Long.parseLong(m.group(1));
        kib = m.group(2).equals("G")
                ? Math.multiplyExact(kib, 1024L * 1024)
                : m.group(2).equals("M") ? Math.multiplyExact(kib, 1024L) : kib;
        VolumeFormat format = null;
        String asked = call.param("format");
        if (asked != null) {
            format = VolumeFormat.fromId(asked)
                    .orElseThrow(() -> ApiException.badParameter(
                            "format",
                            "value '" + VolumeId.printable(asked) + "' does not have a value in the enumeration '"
                                    + Arrays.stream(VolumeFormat.values())
                                            .map(VolumeFormat::id)
                                            .collect(Collectors.joining(", "))
                                    + "'"));
        }
        Matcher inName = FORMAT_IN_NAME.matcher(filename);
        if (inName.matches()) {
            VolumeFormat named = VolumeFormat.parse(inName.group(1));
            if (format != null && format != named) {
                throw ApiException.badParameter(
                        "format", "different storage formats (" + format.id() + " != " + named.id() + ")");
            }
            format = named;
        }
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, storage);
            return vsm.alloc(NewVolume.of(storage, vmid, kib).name(filename).format(format))
                    .toString();
        }
    }

    private Object info(Call call) {
        VolumeId volume = volume(call);
        call.check("/storage/" + volume.storage(), Privilege.AUDIT, Privilege.ALLOCATE_SPACE);
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            VolumeDetails d = vsm.info(volume);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("format", d.format());
            m.put("path", d.path().toString());
            m.put("size", d.size());
            m.put("used", d.used());
            return m;
        }
    }

    /**
     * pve's {@code PUT .../content/{volume}} ({@code updateattributes}): a backup's {@code notes}
     * and {@code protected}, each when given ({@code vsm update-attributes}). pve asks for "read
     * access" to the volume: {@code Datastore.Audit} or {@code AllocateSpace} for an iso, a
     * template or an import file, {@code AllocateSpace} and the guest's {@code VM.Backup} for a
     * backup, else {@code Datastore.Allocate}; vsm has no guest privileges, so asks
     * {@code Datastore.Allocate} for all but the first three, as it does to free one.
     */
    private Object update(Call call) {
        VolumeId volume = volume(call);
        String volname = volume.volname();
        String type = volname.contains("/") ? volname.substring(0, volname.indexOf('/')) : "";
        if (Set.of("iso", "vztmpl", "import").contains(type)) {
            call.check("/storage/" + volume.storage(), Privilege.AUDIT, Privilege.ALLOCATE_SPACE);
        } else {
            call.check("/storage/" + volume.storage(), Privilege.ALLOCATE);
        }
        String notes = call.param("notes");
        Boolean isProtected = call.param("protected") == null ? null : call.bool("protected");
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, volume.storage());
            vsm.updateAttributes(volume, notes, isProtected);
            return null;
        }
    }

    /**
     * pve's {@code DELETE .../content/{volume}}: the free runs as a task {@code imgdel} (id
     * {@code [VMID@]STORAGE}, the volume's owner and storage) whose UPID is returned and whose log
     * says {@code Removed volume 'VOLID'}; a free that fails fails the task. The privilege
     * ({@code Datastore.Allocate}), the id, the storage and the volume's name are checked first
     * (400, 403). With pve's {@code delay} (1 to 30 s to wait for the task), {@code null} when the
     * task ended well, else its error (500): vsm's task has ended when the answer comes.
     */
    private Object delete(Call call) {
        VolumeId volume = volume(call);
        call.check("/storage/" + volume.storage(), Privilege.ALLOCATE);
        long delay = call.integer("delay", 0);
        if (call.param("delay") != null && delay < 1) {
            throw ApiException.badParameter("delay", "value must have a minimum value of 1");
        }
        if (delay > 30) {
            throw ApiException.badParameter("delay", "value must have a maximum value of 30");
        }
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, volume.storage());
            Integer owner = vsm.owner(volume); // a name its storage's plugin refuses is bad input: 400, no task
            String id = (owner == null ? "" : owner + "@") + volume.storage();
            Task task = tasks.start(vsm.nodeName(), "imgdel", id, call.subject());
            String upid = task.run(t -> {
                vsm.free(volume);
                t.log("Removed volume '" + volume + "'");
            });
            if (call.param("delay") == null) {
                return upid;
            }
            if (!task.exitstatus().equals("OK")) {
                throw ApiException.failed(task.exitstatus());
            }
            return null;
        }
    }

    /**
     * pve's {@code copy}: the volume as the new volume {@code target} (on the path's storage, as
     * pve's {@code real_volume_id} has it), run as a task {@code imgcopy} whose UPID is returned
     * and whose log names the copy; a copy that fails or is refused fails the task, but ids that
     * do not parse are refused first (400). pve's method
     * has no permissions, so only {@code root@pam} may call it; vsm lets root's tokens without
     * privilege separation too, as for tasks. {@code target_node} must be this node.
     */
    private Object copy(Call call) {
        VolumeId source = volume(call);
        VolumeId target = volume(call, "target");
        if (!call.isRoot()) {
            throw ApiException.of(403, "Permission check failed (user != root@pam)");
        }
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            String targetNode = call.param("target_node");
            if (targetNode != null && !targetNode.equals(vsm.nodeName())) {
                throw ApiException.badParameter(
                        "target_node", "vsm copies on this node only, not to '" + VolumeId.printable(targetNode) + "'");
            }
            // ids their storage's plugin refuses (a path, another name) are bad input, as elsewhere: 400, no task
            vsm.path(source);
            vsm.path(target);
            return tasks.start(vsm.nodeName(), "imgcopy", "", call.subject()).run(task -> {
                task.log("copy '" + source + "' to '" + target + "'");
                vsm.copy(CopyVolume.to(source, target));
            });
        }
    }

    /** The path's volume ({@link #volume(Call, String)}). */
    static VolumeId volume(Call call) {
        return volume(call, "volume");
    }

    /**
     * A volume parameter as pve takes it: a full volume id, or a name on the path's storage. It is
     * parsed by the command line's parser, and must be on the path's storage.
     */
    static VolumeId volume(Call call, String param) {
        String storage = call.storage("storage");
        String text = call.required(param);
        VolumeId id;
        try {
            id = VolumeId.parse(text.contains(":") ? text : storage + ":" + text);
        } catch (StorageException e) {
            throw ApiException.badParameter(param, e.getMessage());
        }
        if (!id.storage().equals(storage)) {
            throw ApiException.badParameter(
                    param, "volume '" + VolumeId.printable(text) + "' is not on storage '" + storage + "'");
        }
        return id;
    }
}
