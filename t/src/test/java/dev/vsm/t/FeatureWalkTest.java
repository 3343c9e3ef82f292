package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code vsm info} says a volume can do holds: for each kind of dir volume (raw, qcow2, vmdk,
 * raw and qcow2 bases, a linked clone) and each feature with a command (snapshot with rollback
 * and snapshot-delete, template, clone, rename, copy), a fresh volume of that kind is made and the
 * command run: it succeeds when {@code info} lists the feature, and is refused (exit 2, one line,
 * nothing changed) when it does not. {@code sparseinit} has no command of its own.
 */
class FeatureWalkTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private int nextVmid = 100;

    @AfterEach
    void release() {
        if (vsm != null) {
            vsm.releaseImmutable();
        }
    }

    /** The volume id a command printed in JSON (its last line: {@code clone} prints pve's progress line first). */
    private String volid(Vsm.Result r) {
        List<String> lines = r.ok().lines();
        return new Vsm.Result(0, lines.get(lines.size() - 1), "")
                .json()
                .get("volid")
                .asText();
    }

    private String alloc(int vmid, String format) {
        return volid(vsm.run(
                "alloc", "local", Integer.toString(vmid), "", "1M", "--format", format, "--output-format", "json"));
    }

    private String base(int vmid, String format) {
        return volid(vsm.run("create-base", alloc(vmid, format), "--output-format", "json"));
    }

    /** The kinds of volume, each made fresh for a given owner. */
    private Map<String, IntFunction<String>> kinds() {
        Map<String, IntFunction<String>> kinds = new LinkedHashMap<>();
        kinds.put("raw", vmid -> alloc(vmid, "raw"));
        kinds.put("qcow2", vmid -> alloc(vmid, "qcow2"));
        kinds.put("vmdk", vmid -> alloc(vmid, "vmdk"));
        kinds.put("base raw", vmid -> base(vmid, "raw"));
        kinds.put("base qcow2", vmid -> base(vmid, "qcow2"));
        kinds.put(
                "linked clone",
                vmid -> volid(
                        vsm.run("clone", base(vmid, "qcow2"), Integer.toString(vmid + 1), "--output-format", "json")));
        return kinds;
    }

    private Set<String> features(String volid) {
        String features = vsm.run("info", volid, "--output-format", "json")
                .ok()
                .json()
                .get("features")
                .asText();
        return new TreeSet<>(features.isEmpty() ? List.of() : Arrays.asList(features.split(",")));
    }

    @Test
    void everyFeatureInfoReportsWorksAndNoOtherDoes() {
        vsm = new Vsm(sandbox);
        Map<String, Set<String>> seen = new LinkedHashMap<>();
        for (Map.Entry<String, IntFunction<String>> kind : kinds().entrySet()) {
            Set<String> features = null;
            for (String feature : List.of("snapshot", "template", "clone", "rename", "copy")) {
                int vmid = nextVmid;
                nextVmid += 10;
                String volume = kind.getValue().apply(vmid);
                Set<String> reported = features(volume);
                if (features == null) {
                    features = reported;
                    seen.put(kind.getKey(), reported);
                }
                assertThat(reported).as("features of a fresh %s", kind.getKey()).isEqualTo(features);
                String target = Integer.toString(vmid + 5);
                List<String[]> commands = switch (feature) {
                    case "snapshot" ->
                        List.of(
                                new String[] {"snapshot", volume, "s1"},
                                new String[] {"rollback", volume, "s1"},
                                new String[] {"snapshot-delete", volume, "s1"});
                    case "template" -> List.<String[]>of(new String[] {"create-base", volume});
                    case "clone" -> List.<String[]>of(new String[] {"clone", volume, target});
                    case "rename" -> List.<String[]>of(new String[] {"rename", volume, target});
                    default -> List.<String[]>of(new String[] {"copy", volume, "local", "--vmid", target});
                };
                String what = kind.getKey() + " " + volume + ": " + feature;
                if (reported.contains(feature)) {
                    for (String[] command : commands) {
                        Vsm.Result r = vsm.run(command);
                        assertThat(r.exit())
                                .as("%s: vsm %s: %s", what, String.join(" ", command), r.err())
                                .isZero();
                    }
                    if (feature.equals("snapshot")) {
                        assertThat(vsm.run("info", volume).ok().out()).as(what).doesNotContain("snapshots:");
                    }
                } else if (!feature.equals("copy")) {
                    Map<String, String> before = Tree.snapshot(sandbox);
                    Vsm.Result r = vsm.run(commands.get(0));
                    assertThat(r.exit())
                            .as(
                                    "%s is not reported, so vsm %s must be refused: %s %s",
                                    what, commands.get(0)[0], r.out(), r.err())
                            .isEqualTo(2);
                    assertThat(r.err().strip().lines().count()).as(what).isEqualTo(1);
                    assertThat(Tree.snapshot(sandbox)).as(what).isEqualTo(before);
                }
            }
        }
        assertThat(seen.get("qcow2"))
                .contains("snapshot", "template", "copy", "rename")
                .doesNotContain("clone");
        assertThat(seen.get("raw")).doesNotContain("snapshot");
        assertThat(seen.get("base qcow2")).contains("clone").doesNotContain("snapshot", "template");
        assertThat(seen.get("linked clone")).contains("snapshot");
    }

    @Test
    void infoListsAQcow2VolumesSnapshotsOldestFirst() {
        vsm = new Vsm(sandbox);
        String volume = alloc(100, "qcow2");
        vsm.run("snapshot", volume, "before").ok();
        vsm.run("snapshot", volume, "after").ok();
        assertThat(vsm.run("info", volume, "--output-format", "json")
                        .ok()
                        .json()
                        .get("snapshots")
                        .asText())
                .isEqualTo("before,after");
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("snapshot", volume, "after")
                .badInput("snapshot 'after' of volume 'local:100/vm-100-disk-0.qcow2' already exists");
        vsm.run("rollback", volume, "never")
                .badInput("can't rollback, snapshot 'never' does not exist on '100/vm-100-disk-0.qcow2'");
        vsm.run("snapshot-delete", volume, "never")
                .badInput("snapshot 'never' does not exist on '100/vm-100-disk-0.qcow2'");
        vsm.run("snapshot", volume, "1bad").badInput("snapshot");
        assertThat(vsm.run("snapshot-delete", volume, "before", "--dry-run")
                        .ok()
                        .out())
                .startsWith("+ qemu-img snapshot --image-opts -d before ");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
        vsm.run("snapshot-delete", volume, "before").ok();
        assertThat(vsm.run("info", volume).ok().out()).contains("snapshots: after\n");
        assertThat(QemuImg.info(vsm.defaultLocal().resolve("images/100/vm-100-disk-0.qcow2"))
                        .get("format")
                        .asText())
                .isEqualTo("qcow2");
    }
}
