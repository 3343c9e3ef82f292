import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The least work a Java listing of {@code images/<vmid>/<file>} does, for list10k.sh's floor row:
 * a directory read per owner and an lstat per file (a file's type must be known before it is
 * opened: opening a FIFO would block), both on every core; one stat process for all files'
 * allocated bytes (java.nio cannot read st_blocks), run while each file's first 4 KiB are read
 * on every core; one line per file, printed at once. No checks, no sorting, no volume names:
 * what no listing in Java 17 can do without. With no argument it returns at once (the JVM's own
 * start, for comparison).
 *   java ListFloor <images dir>
 */
public final class ListFloor {
    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            return;
        }
        List<Path> owners = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(Path.of(args[0]))) {
            s.forEach(owners::add);
        }
        List<Path> files = owners.parallelStream().flatMap(o -> regularFiles(o).stream()).toList();

        List<String> argv = new ArrayList<>(List.of("stat", "-L", "--printf=%b %Z %n\\0", "--"));
        files.forEach(f -> argv.add(f.toString()));
        Process stat = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[][] statOut = new byte[1][];
        Thread reader = new Thread(() -> {
            try {
                statOut[0] = stat.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        reader.start();
        long[] sizes = files.parallelStream().mapToLong(ListFloor::virtualSize).toArray();
        reader.join();
        stat.waitFor();

        String out = new String(statOut[0], StandardCharsets.UTF_8);
        Map<String, String> allocated = new HashMap<>();
        for (int at = 0; at < out.length(); ) {
            int end = out.indexOf('\0', at);
            int space = out.indexOf(' ', at);
            allocated.put(out.substring(out.indexOf(' ', space + 1) + 1, end), out.substring(at, space));
            at = end + 1;
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < files.size(); i++) {
            String name = files.get(i).toString();
            text.append(name).append(" qcow2 images ").append(sizes[i]).append(' ').append(allocated.get(name)).append('\n');
        }
        PrintStream o = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        o.print(text);
        o.flush();
    }

    private static List<Path> regularFiles(Path dir) {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                if (Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isRegularFile()) {
                    files.add(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The qcow2 header's virtual size (big-endian, at byte 24). */
    private static long virtualSize(Path file) {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(4096);
            c.read(head, 0);
            return head.getLong(24);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
