package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLoadTest {
    @TempDir
    Path tmp;

    ConfigFiles files;
    String f;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(tmp);
        f = files.file.toString();
    }

    /** Loading {@code yaml} fails with exactly {@code message} (a StorageException BAD_INPUT, one line). */
    private void assertRefused(String yaml, String message) {
        files.write(yaml);
        byte[] before = files.bytes();
        assertThatThrownBy(files::load)
                .isInstanceOfSatisfying(
                        ConfigException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(message);
        assertThat(message).doesNotContain("\n");
        assertThat(files.bytes()).isEqualTo(before);
    }

    @Test
    void loadsTypedValuesInFileOrder() {
        files.write("""
                storages:
                  san:
                    type: lvm
                    vgname: vg_san
                    shared: true
                    saferemove: on
                    saferemove-stepsize: 16
                    saferemove_throughput: -10485760
                    bwlimit-ratio: 1.5
                  local:
                    type: dir
                    path: /var/lib/vz
                    content: [images, iso]
                    preallocation: off
                    disable: yes
                    max-protected-backups: "5"
                    nodes: node1, node2;node3
                """);
        StorageConfigs configs = files.load();
        assertThat(configs.ids()).containsExactly("san", "local");
        assertThat(configs.origin()).isEqualTo(StorageConfigs.Origin.FILE);
        assertThat(configs.warnings()).isEmpty();

        StorageConfig san = configs.require("san");
        assertThat(san.type()).isEqualTo("lvm");
        assertThat(san.properties())
                .containsExactly(
                        Map.entry("vgname", "vg_san"),
                        Map.entry("shared", true),
                        Map.entry("saferemove", true),
                        Map.entry("saferemove-stepsize", 16L),
                        Map.entry("saferemove_throughput", "-10485760"),
                        Map.entry("bwlimit-ratio", 1.5));

        StorageConfig local = configs.require("local");
        assertThat(local.properties())
                .containsExactly(
                        Map.entry("path", "/var/lib/vz"),
                        Map.entry("content", List.of("images", "iso")),
                        Map.entry("preallocation", "off"),
                        Map.entry("disable", true),
                        Map.entry("max-protected-backups", 5L),
                        Map.entry("nodes", List.of("node1", "node2", "node3")));
        assertThat(local.disabled()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({
        "yes,true",
        "no,false",
        "on,true",
        "off,false",
        "'true',true",
        "FALSE,false",
        "1,true",
        "0,false",
        "'\"yes\"',true",
        "'''0''',false"
    })
    void booleansAcceptPvesSpellings(String written, boolean expected) {
        files.write("storages:\n  san:\n    type: lvm\n    vgname: vg\n    saferemove: " + written + "\n");
        assertThat(files.load().require("san").get("saferemove")).contains(expected);
    }

    @Test
    void yaml12KeepsOffAndOnAsStringsForEnums() {
        files.write(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    preallocation: off\n    qcow2-subclusters: on\n");
        StorageConfig local = files.load().require("local");
        assertThat(local.get("preallocation")).contains("off");
        assertThat(local.get("qcow2-subclusters")).contains("on");
    }

    @Test
    void listsMayBeSeparatedStringsAndLoseDuplicates() {
        files.write(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    content: \"images,iso; backup  images\"\n");
        assertThat(files.load().require("local").list("content")).containsExactly("images", "iso", "backup");
    }

    @Test
    void blockSequencesAreListsToo() {
        files.write("storages:\n  local:\n    type: dir\n    path: /srv\n    content:\n      - images\n      - ISO\n");
        assertThat(files.load().require("local").list("content")).containsExactly("images", "iso");
    }

    @Test
    void anEmptyContentListMeansNoneWhereTheTypeAllowsIt() {
        files.write("storages:\n  local:\n    type: dir\n    path: /srv\n    content: []\n");
        assertThat(files.load().require("local").list("content")).containsExactly("none");
    }

    @Test
    void theDigestIsTheSha1OfTheFileBytes() throws Exception {
        String yaml = "storages:\n  local:\n    type: dir\n    path: /srv\n";
        files.write(yaml);
        String expected = HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-1").digest(yaml.getBytes(StandardCharsets.UTF_8)));
        assertThat(files.load().digest()).isEqualTo(expected);
        files.write(yaml + "# a comment changes the digest\n");
        assertThat(files.load().digest()).isNotEqualTo(expected);
    }

    @Test
    void emptyStoragesAndReservedTopLevelKeysAreFine() {
        files.write("cluster:\n  name: one\nplugin-dir: /opt/vsm/plugins\nstorages:\n");
        StorageConfigs configs = files.load();
        assertThat(configs.ids()).isEmpty();
        assertThat(configs.storages()).isEmpty();
    }

    @Test
    void theBuiltInDefaultIsUsedWhenTheFileIsMissingAndNothingIsWritten() {
        StorageConfigs configs = files.load();
        assertThat(configs.origin()).isEqualTo(StorageConfigs.Origin.BUILT_IN_DEFAULT);
        assertThat(configs.ids()).containsExactly("local");
        StorageConfig local = configs.require("local");
        assertThat(local.type()).isEqualTo("dir");
        assertThat(local.get("path")).contains(files.localDir.toString());
        assertThat(local.list("content"))
                .containsExactly("images", "rootdir", "vztmpl", "iso", "backup", "snippets", "import");
        assertThat(configs.digest()).isEqualTo("da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assertThat(files.file.getParent()).doesNotExist();
    }

    @Test
    void theBuiltInDefaultQuotesAnAwkwardHomeDirectory() {
        ConfigLocation location = new ConfigLocation(files.file, false, tmp.resolve("it's: #odd/vsm/local"));
        assertThat(files.store(location).load().require("local").get("path"))
                .contains(location.defaultLocalDir().toString());
    }

    @Test
    void aMissingFileGivenWithConfigIsAnErrorForReading() {
        ConfigLocation explicit = new ConfigLocation(files.file, true, files.localDir);
        assertThatThrownBy(() -> files.store(explicit).load())
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("config file '" + f + "' does not exist (a command that adds a storage creates it)");
    }

    @Test
    void sectionsOfTypesNotLoadedAreKeptWithAWarning() {
        files.write(
                "storages:\n  local:\n    type: dir\n    path: /srv\n  tank:\n    type: zfspool\n    pool: tank\n    sparse: 1\n");
        StorageConfigs configs = files.load();
        assertThat(configs.ids()).containsExactly("local", "tank");
        assertThat(configs.storages()).containsOnlyKeys("local");
        assertThat(configs.unloaded()).containsOnlyKeys("tank");
        assertThat(configs.unloaded().get("tank").type()).isEqualTo("zfspool");
        assertThat(configs.warnings())
                .containsExactly(f + ":5: storage 'tank': type 'zfspool' is not loaded - section kept unchanged");
        assertThatThrownBy(() -> configs.require("tank"))
                .hasMessage("storage 'tank' has type 'zfspool', which is not loaded (see 'vsm plugins')");
        assertThatThrownBy(() -> configs.require("nope")).hasMessage("storage 'nope' does not exist");
    }

    // --- values refused, each with file, line, storage and key

    @Test
    void anEnumValueOutsideTheEnumeration() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    preallocation: fast\n",
                f
                        + ":5: storage 'local': preallocation: value 'fast' does not have a value in the enumeration 'off, metadata, falloc, full'");
    }

    @Test
    void aBooleanThatIsNone() {
        assertRefused(
                "storages:\n  san:\n    type: lvm\n    vgname: vg\n    saferemove: maybe\n",
                f + ":5: storage 'san': saferemove: type check ('boolean') failed - got 'maybe'");
    }

    @Test
    void anIntegerThatIsNone() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    max-protected-backups: many\n",
                f + ":5: storage 'local': max-protected-backups: type check ('integer') failed - got 'many'");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    max-protected-backups: 2.5\n",
                f + ":5: storage 'local': max-protected-backups: type check ('integer') failed - got '2.5'");
    }

    @Test
    void backupPropertiesFollowPvesFormats() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    prune-backups: keep-bogus=3\n",
                f
                        + ":5: storage 'local': prune-backups: invalid format - invalid key in comma-separated list property: keep-bogus");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    prune-backups: keep-all=1,keep-last=2\n",
                f
                        + ":5: storage 'local': prune-backups: invalid format - keep-all cannot be set together with other options.");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    max-protected-backups: -2\n",
                f + ":5: storage 'local': max-protected-backups: value must have a minimum value of -1");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    bwlimit: default=fast\n",
                f
                        + ":5: storage 'local': bwlimit: invalid format - default: type check ('number') failed - got 'fast'");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    bwlimit: restore=-1\n",
                f + ":5: storage 'local': bwlimit: invalid format - restore: value must have a minimum value of 0");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    bwlimit: upload=5\n",
                f
                        + ":5: storage 'local': bwlimit: invalid format - invalid key in comma-separated list property: upload");
    }

    @Test
    void backupPropertiesInPvesFormatsAreRead() {
        files.write("storages:\n  local:\n    type: dir\n    path: /srv\n    prune-backups: keep-last=3,keep-daily=7\n"
                + "    max-protected-backups: -1\n    bwlimit: default=1024.5,restore=0\n");
        assertThat(files.load().require("local").properties())
                .containsEntry("prune-backups", "keep-last=3,keep-daily=7")
                .containsEntry("max-protected-backups", -1L)
                .containsEntry("bwlimit", "default=1024.5,restore=0");
    }

    @Test
    void anIntegerOutsideItsAllowedValues() {
        assertRefused(
                "storages:\n  san:\n    type: lvm\n    vgname: vg\n    saferemove-stepsize: 3\n",
                f
                        + ":5: storage 'san': saferemove-stepsize: value '3' does not have a value in the enumeration '1, 2, 4, 8, 16, 32'");
    }

    @Test
    void aNumberThatIsNone() {
        assertRefused(
                "storages:\n  san:\n    type: lvm\n    vgname: vg\n    bwlimit-ratio: fast\n",
                f + ":5: storage 'san': bwlimit-ratio: type check ('number') failed - got 'fast'");
    }

    @Test
    void aStringNotMatchingItsPattern() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: relative/dir\n",
                f + ":4: storage 'local': path: value 'relative/dir' does not match the regex pattern '/[^;()]+'");
    }

    @Test
    void aListElementNotMatchingThePatternIsReportedOnItsOwnLine() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    nodes:\n      - node1\n      - bad_node\n",
                f + ":7: storage 'local': nodes: value 'bad_node' does not match the regex pattern '"
                        + CommonProperties.NODE_NAME_PATTERN + "'");
    }

    @Test
    void aListWhereAStringBelongs() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: [/a, /b]\n",
                f + ":4: storage 'local': path: type check ('string') failed - got a list");
    }

    @Test
    void aKeyWithoutValue() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    format:\n",
                f + ":5: storage 'local': format: no value given (write the value after the colon, or remove the key)");
    }

    @Test
    void anExplicitTag() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: !!binary L3Nydg==\n",
                f + ":4: storage 'local': path: unsupported YAML tag '!!binary' (write a plain value)");
    }

    @Test
    void aControlCharacterInAValue() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: \"/srv\\nrm -rf\"\n",
                f + ":4: storage 'local': path: value '/srv\\x0arm -rf' contains a control character");
    }

    @Test
    void contentRules() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    content: [images, movies]\n",
                f + ":5: storage 'local': content: invalid content type 'movies'");
        assertRefused(
                "storages:\n  san:\n    type: lvm\n    vgname: vg\n    content: images,iso\n",
                f + ":5: storage 'san': content: storage does not support content type 'iso'");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    content: [none, images]\n",
                f + ":5: storage 'local': content: unable to combine 'none' with other content types");
        assertRefused(
                "storages:\n  san:\n    type: lvm\n    vgname: vg\n    content: []\n",
                f + ":5: storage 'san': content: storage does not support content type 'none'");
    }

    @Test
    void anUnexpectedProperty() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    vgname: pve\n",
                f + ":5: storage 'local': unexpected property 'vgname'");
    }

    @Test
    void aMissingRequiredProperty() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    content: [iso]\n",
                f + ":2: storage 'local': missing value for required option 'path'");
    }

    @Test
    void aMissingOrBadType() {
        assertRefused(
                "storages:\n  local:\n    path: /srv\n",
                f + ":2: storage 'local': missing value for required option 'type'");
        assertRefused(
                "storages:\n  local:\n    type: [dir]\n",
                f + ":3: storage 'local': type: the type must be a name such as 'dir' (got a list)");
    }

    @Test
    void badStorageIds() {
        assertRefused(
                "storages:\n  1st:\n    type: dir\n    path: /srv\n",
                f + ":2: storage ID '1st' contains illegal characters");
        assertRefused(
                "storages:\n  a:\n    type: dir\n    path: /srv\n",
                f + ":2: storage ID 'a' cannot be shorter than 2 characters");
    }

    @Test
    void aSectionThatIsNotAMapping() {
        assertRefused(
                "storages:\n  local: /srv\n",
                f + ":2: storage 'local': a storage must be a mapping of its properties (got '/srv')");
        assertRefused(
                "storages: [local]\n",
                f + ":1: 'storages' must be a mapping of storage ids to their properties (got a list)");
    }

    @Test
    void everyProblemIsCountedAndKept() {
        files.write("storages:\n  local:\n    type: dir\n    preallocation: fast\n    foo: 1\n");
        assertThatThrownBy(files::load)
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .extracting(ConfigProblem::describe)
                                .containsExactly(
                                        f
                                                + ":4: storage 'local': preallocation: value 'fast' does not have a value in the enumeration 'off, metadata, falloc, full'",
                                        f + ":5: storage 'local': unexpected property 'foo'",
                                        f + ":2: storage 'local': missing value for required option 'path'"))
                .hasMessage(
                        f + ":4: storage 'local': preallocation: value 'fast' does not have a value in the enumeration "
                                + "'off, metadata, falloc, full' (and 2 more problems)");
    }

    // --- files refused as a whole

    @Test
    void duplicateKeys() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    path: /other\n",
                f + ":5: duplicate key 'path' (first on line 4)");
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n  local:\n    type: dir\n    path: /other\n",
                f + ":5: duplicate key 'local' (first on line 2)");
    }

    @Test
    void keysThatAreNotNames() {
        assertRefused("storages:\n  ? [a, b]\n  : type: dir\n", f + ":2: keys must be plain names (got a list)");
    }

    @Test
    void anAliasBombIsRefusedQuickly() {
        String bomb = """
                cluster:
                  a: &a [x, x, x, x, x, x, x, x, x]
                  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
                  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
                  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
                  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
                  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
                  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
                  h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
                storages: {}
                """;
        long start = System.nanoTime();
        assertRefused(bomb, f + ": too many aliases of lists or mappings (at most 10)");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void deepNestingIsRefusedWithItsLineNotAStackOverflow() {
        // 20,000 levels in 40 KB: the composer recursed once per level into a StackOverflowError
        assertRefused(
                "storages:\n  x: " + "[".repeat(20_000) + "]".repeat(20_000) + "\n",
                f + ":2: lists and mappings nested deeper than 64 levels");
        assertRefused(
                "storages:\n\n  x: " + "{a: ".repeat(20_000) + "}".repeat(20_000) + "\n",
                f + ":3: lists and mappings nested deeper than 64 levels");
    }

    @Test
    void nestingUpToTheLimitIsRead() {
        // 64 levels: the top mapping, storages, a section, and 61 lists in a value the schema then refuses
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    nodes: " + "[".repeat(61) + "]".repeat(61)
                        + "\n",
                f + ":5: storage 'local': nodes: type check ('list') failed - got a nested list");
    }

    @Test
    void aRecursiveAliasDoesNotHangTheReader() {
        assertRefused(
                "storages:\n  local:\n    type: dir\n    path: /srv\n    nodes: &n [a1, *n]\n",
                f + ":5: storage 'local': nodes: type check ('list') failed - got a nested list");
    }

    @Test
    void aTopLevelThatIsNotAMapping() {
        assertRefused(
                "- local\n- san\n", f + ":1: the top level must be a mapping with a 'storages:' key (got a list)");
    }

    @Test
    void unknownTopLevelKeys() {
        assertRefused(
                "storages: {}\nstorage:\n  local: {}\n",
                f + ":2: unexpected top-level key 'storage' (storages go under 'storages:')");
    }

    @Test
    void emptyFiles() {
        assertRefused("", f + ": the file holds no configuration (expected a 'storages:' mapping)");
        assertRefused(
                "# nothing but a comment\n\n",
                f + ": the file holds no configuration (expected a 'storages:' mapping)");
    }

    @Test
    void textThatIsNotYaml() {
        assertRefused(
                "storages: [\n",
                f + ":2: expected the node content, but found '<stream end>' (while parsing a flow node)");
        assertRefused(
                "storages:\n  local:\n\ttype: dir\n",
                f
                        + ":3: found character '\\t(TAB)' that cannot start any token. (Do not use \\t(TAB) for indentation) (while scanning for the next token)");
        assertRefused(
                "storages: {}\n---\nstorages: {}\n",
                f + ":2: but found another document (expected a single document in the stream)");
    }

    @Test
    void aFileOverOneMebibyte() {
        assertRefused(
                "storages: {}\n" + "#".repeat(1 << 20) + "\n",
                f + ": the file is larger than 1 MiB - is it really a storage configuration?");
    }

    @Test
    void aFileThatIsNotUtf8() throws Exception {
        Files.createDirectories(files.file.getParent());
        Files.write(files.file, new byte[] {'s', ':', ' ', (byte) 0xff, '\n'});
        assertThatThrownBy(files::load).hasMessage(f + ": the file is not UTF-8 text");
    }

    @Test
    void aDirectoryWhereTheFileShouldBe() throws Exception {
        Files.createDirectories(files.file);
        assertThatThrownBy(files::load).hasMessage(f + ": not a regular file");
    }
}
