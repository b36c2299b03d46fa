import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks a Maven repository that {@code mvn -Prelease deploy} wrote (scripts/check-release.sh makes
 * one in a temporary folder) the way Maven Central checks a release, and prints one line per
 * problem, naming the artifact and what is missing; exits 1 when there is any.
 *
 * <p>Usage: {@code java scripts/ReleaseCheck.java <repository folder> <version> [--signed]}.
 *
 * <p>The published artifacts are the io.dyno ones the BOM (dyno-bom) lists, the BOM itself and the
 * parents their poms name; exactly those must be deployed. For each: a pom with a name of its own
 * and, itself or through its parents (which must be deployed too), a description, a url, a licence,
 * a developer and an scm url; unless the packaging is pom, a jar with a module name
 * (module-info.class or Automatic-Module-Name), a -sources.jar with Java sources and a
 * -javadoc.jar with an index.html; a .sha1 and a .md5 beside each of these files, and with
 * {@code --signed} a .asc. When the version is a release, no version in a published pom (after its
 * properties are resolved) is a SNAPSHOT.
 */
public class ReleaseCheck {
  private static final String GROUP = "io.dyno";
  private static final String BOM = "dyno-bom";
  private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

  private final Path repo;
  private final String version;
  private final boolean signed;
  private final List<String> problems = new ArrayList<>();
  /** Poms read so far by artifactId (every published one is in group io.dyno). */
  private final Map<String, Optional<Element>> poms = new HashMap<>();

  private ReleaseCheck(Path repo, String version, boolean signed) {
    this.repo = repo;
    this.version = version;
    this.signed = signed;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2 || (args.length == 3 && !args[2].equals("--signed")) || args.length > 3) {
      System.err.println(
          "usage: java scripts/ReleaseCheck.java <repository folder> <version> [--signed]");
      System.exit(2);
    }
    ReleaseCheck check = new ReleaseCheck(Path.of(args[0]), args[1], args.length == 3);
    List<String> published = check.run();
    check.problems.forEach(p -> System.out.println("[release] " + p));
    if (!check.problems.isEmpty()) {
      System.out.printf("[release] FAILED: %d problem(s) in %s%n", check.problems.size(), args[0]);
      System.exit(1);
    }
    System.out.printf("[release] OK: %d artifacts as Maven Central wants them: %s%n",
        published.size(), String.join(", ", published));
  }

  private List<String> run() throws IOException {
    Optional<Element> bom = pom(BOM);
    if (bom.isEmpty()) {
      problems.add(BOM + ": not deployed (no " + BOM + "-" + version + ".pom)");
      return List.of();
    }
    // The BOM, what it lists, and every parent those poms name; each with why it is published.
    Map<String, String> published = new TreeMap<>();
    published.put(BOM, "the BOM");
    Map<String, String> bomProperties = properties(BOM);
    Element managed = child(bom.get(), "dependencyManagement");
    for (Element dep : children(managed, "dependencies", "dependency")) {
      if (!GROUP.equals(text(dep, "groupId"))) continue;
      String artifact = text(dep, "artifactId");
      String listed = interpolate(text(dep, "version"), bomProperties);
      if (!version.equals(listed)) {
        problems.add(BOM + ": lists " + artifact + " at version " + listed + ", not " + version);
      }
      published.put(artifact, "the BOM lists it");
    }
    for (String artifact : List.copyOf(published.keySet())) {
      for (String a = artifact; parentOf(a) != null; a = parentOf(a)) {
        published.putIfAbsent(parentOf(a), "the parent of " + a);
      }
    }
    TreeSet<String> deployed = new TreeSet<>();
    Path groupDir = repo.resolve(GROUP.replace('.', '/'));
    if (Files.isDirectory(groupDir)) {
      try (Stream<Path> dirs = Files.list(groupDir)) {
        dirs.filter(Files::isDirectory).forEach(d -> deployed.add(d.getFileName().toString()));
      }
    }
    for (Map.Entry<String, String> p : published.entrySet()) {
      String artifact = p.getKey();
      if (!deployed.contains(artifact)) {
        problems.add(artifact + ": published (" + p.getValue() + ") but not deployed");
      } else {
        checkArtifact(artifact);
      }
    }
    for (String artifact : deployed) {
      if (!published.containsKey(artifact)) {
        problems.add(artifact + ": deployed but the BOM does not list it (list it in dyno-bom/pom.xml,"
            + " or set maven.deploy.skip in its pom if it is not to be published)");
      }
    }
    return List.copyOf(published.keySet());
  }

  private void checkArtifact(String artifact) throws IOException {
    Optional<Element> maybePom = pom(artifact);
    if (maybePom.isEmpty()) {
      problems.add(artifact + ": no pom for version " + version);
      return;
    }
    Element pom = maybePom.get();
    Path pomFile = pomFile(artifact).orElseThrow();
    String base = pomFile.getFileName().toString().replaceFirst("\\.pom$", "");
    List<Path> files = new ArrayList<>(List.of(pomFile));

    if (text(pom, "name") == null) problems.add(artifact + ": pom has no <name>");
    requireInherited(artifact, "description", "<description>", p -> text(p, "description") != null);
    requireInherited(artifact, "url", "<url>", p -> text(p, "url") != null);
    requireInherited(artifact, "licenses", "<licenses> entry with a name and a url",
        p -> children(p, "licenses", "license").stream()
            .anyMatch(l -> text(l, "name") != null && text(l, "url") != null));
    requireInherited(artifact, "developers", "<developers> entry with a name or an id",
        p -> children(p, "developers", "developer").stream()
            .anyMatch(d -> text(d, "name") != null || text(d, "id") != null));
    requireInherited(artifact, "scm", "<scm> with a url and a connection",
        p -> child(p, "scm") != null && text(child(p, "scm"), "url") != null
            && text(child(p, "scm"), "connection") != null);

    String packaging = Optional.ofNullable(text(pom, "packaging")).orElse("jar");
    if (!packaging.equals("pom")) {
      Path jar = pomFile.resolveSibling(base + ".jar");
      Path sources = pomFile.resolveSibling(base + "-sources.jar");
      Path javadoc = pomFile.resolveSibling(base + "-javadoc.jar");
      if (requireFile(artifact, jar, "jar")) {
        files.add(jar);
        if (!hasModuleName(jar)) {
          problems.add(artifact + ": jar has no module name (module-info.class or an"
              + " Automatic-Module-Name manifest entry)");
        }
      }
      if (requireFile(artifact, sources, "-sources.jar")) {
        files.add(sources);
        if (!contains(sources, n -> n.endsWith(".java"))) {
          problems.add(artifact + ": -sources.jar holds no .java file");
        }
      }
      if (requireFile(artifact, javadoc, "-javadoc.jar")) {
        files.add(javadoc);
        if (!contains(javadoc, n -> n.equals("index.html"))) {
          problems.add(artifact + ": -javadoc.jar holds no index.html");
        }
      }
    }
    for (Path file : files) {
      List<String> suffixes = signed ? List.of(".sha1", ".md5", ".asc") : List.of(".sha1", ".md5");
      for (String suffix : suffixes) {
        if (!Files.isRegularFile(file.resolveSibling(file.getFileName() + suffix))) {
          problems.add(artifact + ": " + file.getFileName() + " has no " + suffix
              + (suffix.equals(".asc") ? " signature" : " checksum"));
        }
      }
    }
    if (!version.endsWith("-SNAPSHOT")) checkNoSnapshot(artifact, pom);
  }

  /** Every version the pom names, its properties (and its parents') resolved: none a SNAPSHOT. */
  private void checkNoSnapshot(String artifact, Element pom) {
    Map<String, String> props = properties(artifact);
    for (Element v : descendants(pom, "version")) {
      if (v.getParentNode() == pom) continue; // the project's own, checked as the folder's name
      String value = interpolate(v.getTextContent().trim(), props);
      if (value.contains("SNAPSHOT")) {
        Element owner = (Element) v.getParentNode();
        problems.add(artifact + ": SNAPSHOT in a release: " + owner.getTagName() + " "
            + text(owner, "groupId") + ":" + text(owner, "artifactId") + ":" + value);
      }
    }
  }

  private interface PomTest {
    boolean test(Element pom);
  }

  /** The pom, or a parent up its chain in this repository, passes; otherwise one problem line. */
  private void requireInherited(String artifact, String element, String what, PomTest test) {
    for (String a = artifact; a != null; a = parentOf(a)) {
      Optional<Element> p = pom(a);
      if (p.isEmpty()) {
        problems.add(
            artifact + ": parent " + a + " is not deployed, so its <" + element + "> cannot be read");
        return;
      }
      if (test.test(p.get())) return;
    }
    problems.add(artifact + ": pom has no " + what + " (nor has any parent)");
  }

  private boolean requireFile(String artifact, Path file, String what) {
    if (Files.isRegularFile(file)) return true;
    problems.add(artifact + ": no " + what + " (" + file.getFileName() + ")");
    return false;
  }

  private static boolean hasModuleName(Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      if (j.getEntry("module-info.class") != null) return true;
      Pattern versioned = Pattern.compile("META-INF/versions/\\d+/module-info\\.class");
      if (j.stream().anyMatch(e -> versioned.matcher(e.getName()).matches())) return true;
      return j.getManifest() != null
          && j.getManifest().getMainAttributes().getValue("Automatic-Module-Name") != null;
    }
  }

  private static boolean contains(Path jar, Predicate<String> name) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      return j.stream().anyMatch(e -> name.test(e.getName()));
    }
  }

  /** The deployed pom of this version; for a snapshot the newest timestamped one. */
  private Optional<Path> pomFile(String artifact) {
    Path dir = repo.resolve(GROUP.replace('.', '/')).resolve(artifact).resolve(version);
    if (!Files.isDirectory(dir)) return Optional.empty();
    String prefix = artifact + "-" + version.replaceFirst("-SNAPSHOT$", "");
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> {
            String n = f.getFileName().toString();
            return n.startsWith(prefix) && n.endsWith(".pom");
          })
          .max(Path::compareTo);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Optional<Element> pom(String artifact) {
    return poms.computeIfAbsent(artifact, a -> pomFile(a).map(ReleaseCheck::parse));
  }

  /** The io.dyno parent the pom names (null when none, or another group's). */
  private String parentOf(String artifact) {
    Element parent = pom(artifact).map(p -> child(p, "parent")).orElse(null);
    if (parent == null || !GROUP.equals(text(parent, "groupId"))) return null;
    return text(parent, "artifactId");
  }

  /** The pom's properties over its parents', with the project's coordinates. */
  private Map<String, String> properties(String artifact) {
    List<Element> chain = new ArrayList<>();
    for (String a = artifact; a != null && pom(a).isPresent(); a = parentOf(a)) {
      chain.add(0, pom(a).get());
    }
    Map<String, String> props = new LinkedHashMap<>();
    for (Element p : chain) {
      Element properties = child(p, "properties");
      if (properties == null) continue;
      for (Node n = properties.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element e) props.put(e.getTagName(), e.getTextContent().trim());
      }
    }
    props.put("project.version", version);
    props.put("project.groupId", GROUP);
    props.put("project.artifactId", artifact);
    Element parent = pom(artifact).map(p -> child(p, "parent")).orElse(null);
    if (parent != null) props.put("project.parent.version", text(parent, "version"));
    return props;
  }

  private static String interpolate(String value, Map<String, String> props) {
    if (value == null) return null;
    for (int i = 0; i < 10 && value.contains("${"); i++) {
      Matcher m = PROPERTY.matcher(value);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        m.appendReplacement(out, Matcher.quoteReplacement(props.getOrDefault(m.group(1), m.group())));
      }
      m.appendTail(out);
      if (out.toString().equals(value)) break;
      value = out.toString();
    }
    return value;
  }

  private static Element parse(Path file) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(false);
      Document doc = f.newDocumentBuilder().parse(file.toFile());
      return doc.getDocumentElement();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static Element child(Element parent, String name) {
    if (parent == null) return null;
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) return e;
    }
    return null;
  }

  /** The {@code item} elements in the {@code list} element under {@code parent}. */
  private static List<Element> children(Element parent, String list, String item) {
    List<Element> out = new ArrayList<>();
    Element l = child(parent, list);
    if (l == null) return out;
    for (Node n = l.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(item)) out.add(e);
    }
    return out;
  }

  private static List<Element> descendants(Element root, String name) {
    List<Element> out = new ArrayList<>();
    var nodes = root.getElementsByTagName(name);
    for (int i = 0; i < nodes.getLength(); i++) out.add((Element) nodes.item(i));
    return out;
  }

  /** The trimmed text of the named child, or null when it is absent or blank. */
  private static String text(Element parent, String name) {
    Element c = child(parent, name);
    if (c == null) return null;
    String t = c.getTextContent().trim();
    return t.isEmpty() ? null : t;
  }
}
