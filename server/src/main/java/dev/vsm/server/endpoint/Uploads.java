package dev.vsm.server.endpoint;

import dev.vsm.api.Upload;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Privilege;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.MultipartUpload;
import dev.vsm.server.route.Route;
import dev.vsm.server.task.Tasks;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeId;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code POST /nodes/{node}/storage/{storage}/upload}: pve's upload of an iso, a container
 * template or an import file, as {@code multipart/form-data} with {@code content},
 * {@code checksum} and {@code checksum-algorithm} first and then the file in the part named
 * {@code filename}. Privilege, parameters and name are checked before the file's first byte is
 * read; the file is then streamed to a temporary in the storage ({@link VsmStorage#upload}) and
 * named only when whole and checked. The answer is the UPID of a task, as pve's: a checksum that
 * does not match or an image that names data outside itself fails the task (nothing is kept),
 * while a refused request or a body that breaks off or is over the limit fails the request.
 */
public final class Uploads {
    private static final Set<String> FIELDS = Set.of("content", "checksum", "checksum-algorithm");
    /** pve's upload ids: none ({@code fork_worker('imgcopy', undef, ...)}). */
    private static final String TYPE = "imgcopy";
    /** pve's {@code normalize_content_filename}: what is not one of these becomes {@code _}. */
    private static final Pattern UNSAFE = Pattern.compile("[^a-zA-Z0-9_.-]");

    private final Tasks tasks;
    private final long limit;

    /** @param limit the most bytes an upload's body may have */
    public Uploads(Tasks tasks, long limit) {
        this.tasks = tasks;
        this.limit = limit;
    }

    public List<Route> routes() {
        return List.of(Route.upload("/nodes/{node}/storage/{storage}/upload", FIELDS, this::upload));
    }

    private Object upload(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.ALLOCATE_TEMPLATE);
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            StorageStatus.exists(vsm, storage);
            MultipartUpload body = MultipartUpload.of(call.body(), limit);
            call.accept(body.fieldsBeforeFile());
            Upload file = Upload.of(storage, content(call), filename(body.fileName()), body.file());
            String algorithm = call.param("checksum-algorithm");
            String checksum = call.param("checksum");
            if ((algorithm == null) != (checksum == null)) {
                String missing = algorithm == null ? "checksum-algorithm" : "checksum";
                throw ApiException.badParameter(missing, "property is missing and it is not optional");
            }
            Upload upload = algorithm == null ? file : file.checksum(algorithm, checksum);
            VolumeId volid = vsm.checkUpload(upload);
            // a StorageException is what the data is (a checksum, an image): the task's failure, as pve's;
            // anything else is the request's (the body broke off or was too large): nothing was kept
            return tasks.start(vsm.nodeName(), TYPE, "", call.subject()).run(task -> {
                task.log("starting file upload to: " + volid);
                vsm.upload(upload);
                if (checksum != null) {
                    task.log("checksum verified (" + algorithm + ")");
                }
                task.log("finished file import successfully");
            });
        }
    }

    private static ContentType content(Call call) {
        String value = call.required("content");
        return ContentType.fromId(value)
                .filter(Upload.CONTENT::contains)
                .orElseThrow(() -> ApiException.badParameter(
                        "content",
                        "value '" + VolumeId.printable(value)
                                + "' does not have a value in the enumeration 'iso, vztmpl, import'"));
    }

    /**
     * pve's {@code normalize_content_filename} for the characters (each that is not a letter, a
     * digit, {@code _}, {@code .} or {@code -} becomes {@code _}); but where pve keeps only what
     * follows the last {@code /} or {@code \}, vsm refuses such a name: a name that is a path is
     * no file's name a client meant.
     */
    private static String filename(String given) {
        if (given == null || given.isEmpty()) {
            throw ApiException.badParameter("filename", "property is missing and it is not optional");
        }
        if (given.length() > 255) {
            throw ApiException.badParameter("filename", "value may only be 255 characters long");
        }
        if (given.indexOf('/') >= 0 || given.indexOf('\\') >= 0) {
            throw ApiException.badParameter(
                    "filename", "'" + VolumeId.printable(given) + "' is a path: give the file's name only");
        }
        String name = UNSAFE.matcher(given.strip()).replaceAll("_");
        if (name.equals(".") || name.equals("..")) {
            throw ApiException.badParameter("filename", "wrong file extension");
        }
        return name;
    }
}
