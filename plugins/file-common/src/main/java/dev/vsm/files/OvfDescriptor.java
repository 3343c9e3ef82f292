package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.XMLReader;
import org.xml.sax.ext.DefaultHandler2;

/**
 * An OVF descriptor read as pve's {@code PVE::GuestImport::OVF::parse_ovf} reads it: the guest's
 * name, CPUs, memory, OS type, firmware, disks (bus and index, the file each comes from, the
 * capacity the descriptor gives) and network cards. The values are pve's XPath
 * {@code findvalue}s: the text of every matching element, concatenated.
 *
 * <p>The descriptor is untrusted (vsm runs as root; anyone who may write an import directory can
 * leave one there), so it is parsed by a SAX parser that fetches nothing and expands nothing:
 * a document type declaration ({@code <!DOCTYPE}, which is where entities and external DTDs live)
 * is refused as soon as it is seen, and so are a descriptor of more than {@value #MAX_BYTES}
 * bytes, more than {@value #MAX_ELEMENTS} elements or nesting deeper than {@value #MAX_DEPTH}.
 * A disk file the descriptor names must be a plain file name (pve's characters, not {@code .} or
 * {@code ..}): no path leads out of the directory or archive.
 */
public final class OvfDescriptor {
    /** A descriptor larger than this is no real one (ovftool's and VirtualBox's are a few KiB). */
    public static final int MAX_BYTES = 4 << 20;
    /** More elements than any real descriptor has: bounds the work on a hostile one. */
    public static final int MAX_ELEMENTS = 50_000;

    public static final int MAX_DEPTH = 64;

    static final String OVF_NS = "http://schemas.dmtf.org/ovf/envelope/1";
    static final String VMW_NS = "http://www.vmware.com/schema/ovf";
    static final String RASD_NS = "http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData";

    private static final String PROCESSOR = "3";
    private static final String MEMORY = "4";
    private static final String ETHERNET = "10";
    private static final String DISK_DRIVE = "17";
    /** The CIM resource types pve maps to a bus: IDE controller, parallel SCSI HBA, other storage device. */
    private static final Map<String, String> BUS = Map.of("5", "ide", "6", "scsi", "20", "sata");

    private static final Set<String> NIC_MODELS = Set.of("e1000", "e1000e", "vmxnet3");

    /** RFC 3986 unreserved characters, as pve's {@code $valid_uripath_chars}. */
    private static final String URI_CHAR = "[\\p{Alnum}\\-._~]";

    private static final Pattern HOST_RESOURCE =
            Pattern.compile("(?:ovf:)?/(" + URI_CHAR + "+)/(" + URI_CHAR + "+)\\n?", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern FILE_REF =
            Pattern.compile("(?:" + URI_CHAR + "|/)+\\n?", Pattern.UNICODE_CHARACTER_CLASS);
    /** pve's {@code SAFE_CHAR_WITH_WHITESPACE_CLASS_RE}: a file name, never a path. */
    private static final Pattern FILE_PATH = Pattern.compile("([ a-zA-Z0-9\\-.+=_]+)\\n?");

    private static final Pattern CAPACITY_UNIT =
            Pattern.compile("\\s*byte\\s*\\*\\s*([0-9]+)\\s*\\^\\s*([0-9]+)\\s*", Pattern.UNICODE_CHARACTER_CLASS);
    private static final Pattern PERL_NUMBER =
            Pattern.compile("\\s*([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?).*", Pattern.DOTALL);

    /** pve's CIM operating system ids to its {@code ostype}s; any other id is {@code other}. */
    private static final Map<String, String> OSTYPES = ostypes();

    /**
     * One disk: where the guest sees it ({@code scsi0}), the file it comes from (a name in the
     * descriptor's directory or archive), and its size from the descriptor, when it gives one.
     */
    public record Disk(String address, String file, Long capacity) {
        public Disk {
            requireNonNull(address, "address");
            requireNonNull(file, "file");
        }
    }

    private final Map<String, String> createArgs;
    private final List<Disk> disks;
    private final List<String> nicModels;
    private final List<String> notes;

    private OvfDescriptor(
            Map<String, String> createArgs, List<Disk> disks, List<String> nicModels, List<String> notes) {
        this.createArgs = Map.copyOf(createArgs);
        this.disks = List.copyOf(disks);
        this.nicModels = List.copyOf(nicModels);
        this.notes = List.copyOf(notes);
    }

    /**
     * The guest configuration pve derives: {@code name} (when there is one), {@code cores},
     * {@code memory}, {@code ostype}, {@code bios} ({@code ovmf} for EFI firmware). Not
     * {@code boot}, which follows from the disks that are found.
     */
    public Map<String, String> createArgs() {
        return createArgs;
    }

    /** The disks, in the order of their items. */
    public List<Disk> disks() {
        return disks;
    }

    /** Each network card's model ({@code e1000}, {@code e1000e} or {@code vmxnet3}), in order. */
    public List<String> nicModels() {
        return nicModels;
    }

    /** What pve warns about while it reads (an item it skips, a missing name). */
    public List<String> notes() {
        return notes;
    }

    /**
     * Parses a descriptor.
     *
     * @param data  its bytes
     * @param shown what messages call it (the volume id)
     * @throws StorageException bad input (one line naming {@code shown}) when it is refused
     */
    public static OvfDescriptor parse(byte[] data, String shown) {
        if (data.length > MAX_BYTES) {
            throw refused(shown, "it is larger than %d bytes", MAX_BYTES);
        }
        Element root = Tree.read(data, shown);
        return new Reader(root, shown).read();
    }

    static StorageException refused(String shown, String format, Object... args) {
        return StorageException.badInput(
                "refusing OVF '%s': %s", VolumeId.printable(shown), String.format(format, args));
    }

    /** An element: its namespace and local name, its attributes, and its content (text and elements, in order). */
    static final class Element {
        final String ns;
        final String local;
        final List<String[]> attributes = new ArrayList<>(); // {namespace, local name, qualified name, value}
        final List<Object> content = new ArrayList<>();

        Element(String ns, String local) {
            this.ns = ns;
            this.local = local;
        }

        boolean is(String namespace, String name) {
            return ns.equals(namespace) && local.equals(name);
        }

        List<Element> children(String namespace, String name) {
            List<Element> found = new ArrayList<>();
            for (Object c : content) {
                if (c instanceof Element e && e.is(namespace, name)) {
                    found.add(e);
                }
            }
            return found;
        }

        /** The attribute's value, or null. */
        String attribute(String namespace, String name) {
            for (String[] a : attributes) {
                if (a[0].equals(namespace) && a[1].equals(name)) {
                    return a[3];
                }
            }
            return null;
        }

        /** XPath's string-value: all text inside, in document order. */
        String text() {
            StringBuilder b = new StringBuilder();
            appendText(b);
            return b.toString();
        }

        private void appendText(StringBuilder b) {
            for (Object c : content) {
                if (c instanceof String s) {
                    b.append(s);
                } else {
                    ((Element) c).appendText(b);
                }
            }
        }
    }

    /** The document as {@link Element}s, read by SAX with every limit above. */
    private static final class Tree extends DefaultHandler2 {
        private final String shown;
        private final List<Element> open = new ArrayList<>();
        private final StringBuilder pending = new StringBuilder();
        private Element root;
        private int elements;

        private Tree(String shown) {
            this.shown = shown;
        }

        static Element read(byte[] data, String shown) {
            Tree tree = new Tree(shown);
            try {
                SAXParserFactory factory = SAXParserFactory.newInstance();
                factory.setNamespaceAware(true);
                factory.setValidating(false);
                factory.setXIncludeAware(false);
                factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
                factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
                factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
                factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
                SAXParser parser = factory.newSAXParser();
                parser.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
                parser.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
                XMLReader reader = parser.getXMLReader();
                reader.setProperty("http://xml.org/sax/properties/lexical-handler", tree);
                reader.setProperty("http://xml.org/sax/properties/declaration-handler", tree);
                reader.setContentHandler(tree);
                reader.setErrorHandler(tree);
                reader.setEntityResolver(tree);
                reader.parse(new InputSource(new ByteArrayInputStream(data)));
            } catch (Refusal r) {
                throw refused(shown, "%s", r.getMessage());
            } catch (SAXParseException e) {
                throw refused(
                        shown,
                        "it is not well-formed XML (line %d, column %d: %s)",
                        e.getLineNumber(),
                        e.getColumnNumber(),
                        oneLine(e.getMessage()));
            } catch (SAXException | IOException e) {
                throw refused(shown, "it cannot be parsed: %s", oneLine(e.getMessage()));
            } catch (ParserConfigurationException e) {
                throw StorageException.failed(e, "no XML parser for OVF '%s': %s", shown, e.getMessage());
            }
            if (tree.root == null) {
                throw refused(shown, "it has no root element");
            }
            return tree.root;
        }

        private static String oneLine(String s) {
            return String.valueOf(s).replaceAll("\\s+", " ").trim();
        }

        @Override
        public void startDTD(String name, String publicId, String systemId) throws SAXException {
            throw new Refusal(
                    "it has a document type declaration (<!DOCTYPE ...>): entities and DTDs are not accepted");
        }

        @Override
        public void startEntity(String name) throws SAXException {
            throw new Refusal("it uses the entity '&" + VolumeId.printable(name) + ";': entities are not accepted");
        }

        @Override
        public InputSource resolveEntity(String name, String publicId, String baseURI, String systemId)
                throws SAXException {
            throw new Refusal("it refers to an external entity or DTD: these are not accepted");
        }

        @Override
        public InputSource resolveEntity(String publicId, String systemId) throws SAXException {
            throw new Refusal("it refers to an external entity or DTD: these are not accepted");
        }

        @Override
        public void processingInstruction(String target, String data) {
            /* ignored, as pve's XPath queries never see them */
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes attributes)
                throws SAXException {
            if (++elements > MAX_ELEMENTS) {
                throw new Refusal("it has more than " + MAX_ELEMENTS + " elements");
            }
            if (open.size() >= MAX_DEPTH) {
                throw new Refusal("its elements nest deeper than " + MAX_DEPTH + " levels");
            }
            pending.setLength(0); // whitespace before a child element is a blank, which pve's parser drops
            Element e = new Element(uri, localName);
            for (int i = 0; i < attributes.getLength(); i++) {
                e.attributes.add(new String[] {
                    attributes.getURI(i), attributes.getLocalName(i), attributes.getQName(i), attributes.getValue(i)
                });
            }
            if (open.isEmpty()) {
                root = e;
            } else {
                open.get(open.size() - 1).content.add(e);
            }
            open.add(e);
        }

        @Override
        public void endElement(String uri, String localName, String qName) {
            Element e = open.remove(open.size() - 1);
            if (pending.length() > 0 && e.content.isEmpty()) {
                e.content.add(pending.toString()); // blank text alone in its element is kept
            }
            pending.setLength(0);
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (open.isEmpty()) {
                return;
            }
            boolean blank = pending.isEmpty() || pending.toString().isBlank();
            String s = new String(ch, start, length);
            if (blank && isBlank(s)) {
                pending.append(s);
                return;
            }
            Element e = open.get(open.size() - 1);
            String text = pending + s;
            pending.setLength(0);
            int last = e.content.size() - 1;
            if (last >= 0 && e.content.get(last) instanceof String before) {
                e.content.set(last, before + text);
            } else {
                e.content.add(text);
            }
        }

        @Override
        public void ignorableWhitespace(char[] ch, int start, int length) {
            /* blanks */
        }

        private static boolean isBlank(String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void warning(SAXParseException e) {
            /* nothing to report */
        }

        @Override
        public void error(SAXParseException e) throws SAXException {
            throw e;
        }
    }

    /** Why a descriptor is refused, thrown from inside the parser. */
    private static final class Refusal extends SAXException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }

    /** pve's queries over the tree. */
    private static final class Reader {
        private final Element root;
        private final String shown;
        private final List<String> notes = new ArrayList<>();

        Reader(Element root, String shown) {
            this.root = root;
            this.shown = shown;
        }

        /** {@code /ovf:Envelope/ovf:<name>}. */
        private List<Element> top(String name) {
            return root.is(OVF_NS, "Envelope") ? root.children(OVF_NS, name) : List.of();
        }

        private List<Element> systems() {
            return top("VirtualSystem");
        }

        /** {@code /ovf:Envelope/ovf:VirtualSystem/ovf:VirtualHardwareSection/ovf:Item}. */
        private List<Element> items() {
            List<Element> found = new ArrayList<>();
            for (Element s : systems()) {
                for (Element h : s.children(OVF_NS, "VirtualHardwareSection")) {
                    found.addAll(h.children(OVF_NS, "Item"));
                }
            }
            return found;
        }

        /** Items with a {@code rasd:ResourceType} child whose number is {@code type} (XPath's {@code =}). */
        private List<Element> itemsOfType(String type) {
            double wanted = Double.parseDouble(type);
            List<Element> found = new ArrayList<>();
            for (Element item : items()) {
                for (Element t : item.children(RASD_NS, "ResourceType")) {
                    if (xpathNumber(t.text()) == wanted) {
                        found.add(item);
                        break;
                    }
                }
            }
            return found;
        }

        /** {@code findvalue}: the string-values of the nodes, concatenated. */
        private static String value(List<Element> nodes) {
            StringBuilder b = new StringBuilder();
            for (Element e : nodes) {
                b.append(e.text());
            }
            return b.toString();
        }

        private static String child(Element e, String ns, String name) {
            return value(e.children(ns, name));
        }

        private static String childOfAll(List<Element> items, String ns, String name) {
            StringBuilder b = new StringBuilder();
            for (Element item : items) {
                b.append(child(item, ns, name));
            }
            return b.toString();
        }

        OvfDescriptor read() {
            Map<String, String> qm = new LinkedHashMap<>();
            String name = name();
            if (perlTrue(name)) {
                String dns = name.replaceAll("(?U)\\s+", "-").replaceAll("[^a-zA-Z0-9\\-.]", "");
                qm.put("name", dns);
            } else {
                notes.add("warning: unable to parse the VM name in this OVF manifest, generating a default value");
            }
            qm.put("cores", childOfAll(itemsOfType(PROCESSOR), RASD_NS, "VirtualQuantity"));
            qm.put("memory", childOfAll(itemsOfType(MEMORY), RASD_NS, "VirtualQuantity"));
            List<Element> diskItems = itemsOfType(DISK_DRIVE);
            StringBuilder osId = new StringBuilder();
            for (Element s : systems()) {
                for (Element os : s.children(OVF_NS, "OperatingSystemSection")) {
                    String id = os.attribute(OVF_NS, "id");
                    osId.append(id == null ? "" : id);
                }
            }
            qm.put("ostype", OSTYPES.getOrDefault(osId.toString(), "other"));
            String firmware = firmware();
            if (firmware.equals("efi")) {
                qm.put("bios", "ovmf");
            }
            List<Disk> disks = new ArrayList<>();
            for (Element item : diskItems) {
                Disk d = disk(item);
                if (d != null) {
                    disks.add(d);
                }
            }
            List<String> nics = new ArrayList<>();
            for (Element item : itemsOfType(ETHERNET)) {
                String model = child(item, RASD_NS, "ResourceSubType").toLowerCase(java.util.Locale.ROOT);
                nics.add(NIC_MODELS.contains(model) ? model : "e1000");
            }
            return new OvfDescriptor(qm, disks, nics, notes);
        }

        private String name() {
            StringBuilder b = new StringBuilder();
            for (Element s : systems()) {
                b.append(child(s, OVF_NS, "Name"));
            }
            String name = b.toString();
            if (!perlTrue(name) && !systems().isEmpty()) {
                for (String[] a : systems().get(0).attributes) {
                    if (a[2].equals("ovf:id")) { // pve looks for the attribute by its written name
                        return a[3];
                    }
                }
            }
            return name;
        }

        /** {@code vmw:Config[@vmw:key="firmware"]/@vmw:value} of the hardware sections, or {@code seabios}. */
        private String firmware() {
            StringBuilder b = new StringBuilder();
            for (Element s : systems()) {
                for (Element h : s.children(OVF_NS, "VirtualHardwareSection")) {
                    for (Element c : h.children(VMW_NS, "Config")) {
                        String value = c.attribute(VMW_NS, "value");
                        if ("firmware".equals(c.attribute(VMW_NS, "key")) && value != null) {
                            b.append(value);
                        }
                    }
                }
            }
            return perlTrue(b.toString()) ? b.toString() : "seabios";
        }

        /** One disk item, resolved through the disk section and the references; null (and a note) when pve skips it. */
        private Disk disk(Element item) {
            String hostResource = child(item, RASD_NS, "HostResource");
            Matcher m = HOST_RESOURCE.matcher(hostResource);
            if (!m.matches()) {
                notes.add("invalid host resource " + hostResource + ", skipping");
                return null;
            }
            String diskId = m.group(2);
            StringBuilder fileRef = new StringBuilder();
            StringBuilder capacity = new StringBuilder();
            StringBuilder unit = new StringBuilder();
            for (Element section : top("DiskSection")) {
                for (Element d : section.children(OVF_NS, "Disk")) {
                    if (diskId.equals(d.attribute(OVF_NS, "diskId"))) {
                        appendAttribute(fileRef, d, "fileRef");
                        appendAttribute(capacity, d, "capacity");
                        appendAttribute(unit, d, "capacityAllocationUnits");
                    }
                }
            }
            Long size = capacity(capacity.toString(), unit.toString());
            if (fileRef.isEmpty() || !FILE_REF.matcher(fileRef).matches()) {
                notes.add("invalid host resource " + hostResource + ", skipping");
                return null;
            }
            String controllerId = child(item, RASD_NS, "Parent");
            StringBuilder controllerType = new StringBuilder();
            for (Element other : items()) {
                boolean matches = false;
                for (Element id : other.children(RASD_NS, "InstanceID")) {
                    matches |= id.text().equals(controllerId);
                }
                if (matches) {
                    controllerType.append(child(other, RASD_NS, "ResourceType"));
                }
            }
            if (controllerType.isEmpty()) {
                notes.add("invalid or missing controller: , skipping");
                return null;
            }
            String address = BUS.getOrDefault(controllerType.toString(), "") + child(item, RASD_NS, "AddressOnParent");
            StringBuilder href = new StringBuilder();
            for (Element refs : top("References")) {
                for (Element f : refs.children(OVF_NS, "File")) {
                    if (fileRef.toString().equals(f.attribute(OVF_NS, "id"))) {
                        appendAttribute(href, f, "href");
                    }
                }
            }
            if (href.isEmpty()) {
                notes.add("invalid file reference " + fileRef + ", skipping");
                return null;
            }
            Matcher path = FILE_PATH.matcher(href);
            if (!path.matches() || path.group(1).equals(".") || path.group(1).equals("..")) {
                throw refused(
                        shown,
                        "the referenced path '%s' is invalid (a disk must be a file name in the same directory "
                                + "or archive)",
                        VolumeId.printable(href.toString()));
            }
            return new Disk(address, path.group(1), size);
        }

        private static void appendAttribute(StringBuilder b, Element e, String name) {
            String v = e.attribute(OVF_NS, name);
            if (v != null) {
                b.append(v);
            }
        }
    }

    /** pve's {@code try_parse_capacity_unit} times the capacity; null when the unit is not {@code byte * b^e} or the size is no whole number of bytes. */
    static Long capacity(String capacity, String unit) {
        Matcher u = CAPACITY_UNIT.matcher(unit);
        if (!u.matches()) {
            return null;
        }
        BigInteger factor;
        try {
            int exponent = Integer.parseInt(u.group(2));
            if (exponent > 256) {
                return null;
            }
            factor = new BigInteger(u.group(1)).pow(exponent);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
        if (factor.signum() == 0) {
            return null;
        }
        BigDecimal bytes = perlNumber(capacity).multiply(new BigDecimal(factor));
        try {
            return bytes.stripTrailingZeros().toBigIntegerExact().longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** Perl's numeric value of a string: its leading number, 0 when there is none. */
    static BigDecimal perlNumber(String s) {
        Matcher m = PERL_NUMBER.matcher(s);
        if (!m.matches()) {
            return BigDecimal.ZERO;
        }
        try {
            BigDecimal n =
                    new BigDecimal(m.group(1).startsWith("+") ? m.group(1).substring(1) : m.group(1));
            return n.abs().compareTo(BigDecimal.TEN.pow(30)) > 0 ? BigDecimal.ZERO : n;
        } catch (NumberFormatException e) {
            return BigDecimal.ZERO;
        }
    }

    /** XPath 1.0's {@code number()} of a string: NaN unless it is a plain decimal number with blanks around. */
    static double xpathNumber(String s) {
        String t = s.strip();
        if (!t.matches("-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)")) {
            return Double.NaN;
        }
        return Double.parseDouble(t);
    }

    /** Perl's truth of a string: neither empty nor {@code "0"}. */
    static boolean perlTrue(String s) {
        return !s.isEmpty() && !s.equals("0");
    }

    private static Map<String, String> ostypes() {
        Map<String, String> m = new LinkedHashMap<>();
        Object[][] table = {
            {"winxp", 18},
            {"solaris", 29},
            {"l26", 36},
            {"w2k", 58},
            {"wxp", 67},
            {"w2k3", 69},
            {"w2k3", 70},
            {"wxp", 71},
            {"wxp", 72},
            {"wvista", 73},
            {"wvista", 74},
            {"wxp", 75},
            {"w2k8", 76},
            {"w2k8", 77},
            {"l26", 79},
            {"l26", 80},
            {"solaris", 81},
            {"l26", 82},
            {"l26", 83},
            {"l26", 84},
            {"l26", 85},
            {"l26", 87},
            {"l26", 89},
            {"l26", 90},
            {"l26", 91},
            {"l26", 92},
            {"l26", 93},
            {"l26", 94},
            {"l26", 95},
            {"l26", 96},
            {"l24", 97},
            {"l24", 98},
            {"l26", 99},
            {"l26", 100},
            {"l26", 101},
            {"win7", 103},
            {"win7", 105},
            {"l26", 106},
            {"l26", 107},
            {"l26", 108},
            {"l26", 109},
            {"win8", 111},
            {"win8", 112},
            {"win8", 113},
            {"win8", 114},
            {"win8", 115},
            {"win10", 116},
            {"win8", 117},
            {"win8", 118},
            {"win10", 119},
            {"win10", 120},
            {"win10", 121},
            {"win11", 122},
            {"win11", 123},
        };
        for (Object[] row : table) {
            m.put(String.valueOf(row[1]), (String) row[0]);
        }
        return Map.copyOf(m);
    }
}
