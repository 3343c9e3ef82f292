package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Proxmox's own pvesm (pve-storage 9.1.7) printed and wrote, run side by side with vsm on
 * the same dir storages (docs/pvesm-differences.md, "What was compared"): each expected text or
 * byte here is pvesm's, written down, not produced by running it.
 */
class PvesmOutputTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path store;

    @BeforeEach
    void setUp() throws IOException {
        store = sandbox.resolve("store");
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  store:
                    type: dir
                    path: %s
                    content: [images, iso, vztmpl, snippets, import]
                """.formatted(store));
        Files.createDirectories(store.resolve("template/iso"));
    }

    /** pve's stream of a file of other content: the header is qemu-img's raw size, the length rounded up to 512. */
    private static byte[] pveStream(byte[] data, long header) {
        ByteBuffer b = ByteBuffer.allocate(8 + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header).put(data);
        return b.array();
    }

    private static byte[] data(int length) {
        byte[] d = new byte[length];
        for (int i = 0; i < length; i++) {
            d[i] = (byte) (i * 7 + 3);
        }
        return d;
    }

    @Test
    void statusOfAStorageThatDoesNotExistIsPveParameterError() {
        // pvesm status --storage nope: '400 Parameter verification failed.' / 'storage: No such storage.'
        vsm.run("status", "--storage", "nope").badInput("storage: No such storage. ('nope' does not exist)");
        vsm.run("status", "-storage", "nope", "-content", "images")
                .badInput("storage: No such storage. ('nope' does not exist)");
    }

    @Test
    void anIsoStreamCarriesPveSizeHeaderAndPveStreamOfItIsTaken() throws IOException {
        byte[] iso = data(10000);
        Files.write(store.resolve("template/iso/a.iso"), iso);
        Path stream = sandbox.resolve("a.stream");

        // pvesm export store:iso/a.iso raw+size <file>: the header says 10240 (qemu-img info -f raw),
        // then the file's 10000 bytes
        vsm.run("export", "store:iso/a.iso", "raw+size", stream.toString(), "-q")
                .ok();
        assertThat(Files.readAllBytes(stream)).isEqualTo(pveStream(iso, 10240));

        // pvesm import store:iso/b.iso raw+size <pvesm's stream>: the file, byte for byte
        Vsm.Result r = vsm.run("import", "store:iso/b.iso", "raw+size", stream.toString(), "-q")
                .ok();
        assertThat(r.out()).isEqualTo("successfully imported 'store:iso/b.iso'\n");
        assertThat(Files.readAllBytes(store.resolve("template/iso/b.iso"))).isEqualTo(iso);

        // a length that is whole sectors has the header it always had; a stream older vsm wrote
        // (the length itself) is still taken
        byte[] sectors = data(4096);
        Files.write(sandbox.resolve("s.stream"), pveStream(sectors, 4096));
        Files.write(sandbox.resolve("old.stream"), pveStream(iso, 10000));
        vsm.run(
                        "import",
                        "store:iso/c.iso",
                        "raw+size",
                        sandbox.resolve("s.stream").toString(),
                        "-q")
                .ok();
        vsm.run(
                        "import",
                        "store:iso/d.iso",
                        "raw+size",
                        sandbox.resolve("old.stream").toString(),
                        "-q")
                .ok();
        assertThat(Files.readAllBytes(store.resolve("template/iso/c.iso"))).isEqualTo(sectors);
        assertThat(Files.readAllBytes(store.resolve("template/iso/d.iso"))).isEqualTo(iso);
    }

    @Test
    void anEmptySnippetStreamsAsPveStreamsIt() throws IOException {
        // pvesm export store:snippets/empty.yaml raw+size <file>: the header 0 and nothing after it;
        // pvesm import of that stream makes the empty file
        Files.createDirectories(store.resolve("snippets"));
        Files.write(store.resolve("snippets/empty.yaml"), new byte[0]);
        Path stream = sandbox.resolve("empty.stream");
        vsm.run("export", "store:snippets/empty.yaml", "raw+size", stream.toString(), "-q")
                .ok();
        assertThat(Files.readAllBytes(stream)).isEqualTo(new byte[8]);
        assertThat(vsm.run("import", "store:snippets/copy.yaml", "raw+size", stream.toString(), "-q")
                        .ok()
                        .out())
                .isEqualTo("successfully imported 'store:snippets/copy.yaml'\n");
        assertThat(store.resolve("snippets/copy.yaml")).isEmptyFile();
        // a volume's stream still needs a size
        vsm.run("import", "store:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .badInput("import: the size header says 0 bytes: not a volume size");
    }

    @Test
    void aStreamMoreThanASectorShortOfItsHeaderIsStillTruncated() throws IOException {
        Path cut = Files.write(sandbox.resolve("cut.stream"), pveStream(Arrays.copyOf(data(10000), 9700), 10240));
        vsm.run("list", "store").ok(); // activation makes the storage's directories
        Map<String, String> before = Tree.snapshot(store);
        vsm.run("import", "store:iso/e.iso", "raw+size", cut.toString(), "-q")
                .badInput("import: the stream ended after 9700 of the 10240 bytes its size header announces");
        assertThat(Tree.snapshot(store)).isEqualTo(before);
    }
}
