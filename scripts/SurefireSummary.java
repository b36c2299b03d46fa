import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Reads every Surefire/Failsafe XML report under the given root, prints one summary line
 * ("summary: N passed, N failed, N skipped"), and exits 1 when any test failed, when any test was
 * skipped (except real-Dynomite tests whose server is absent: no image for a container test, no
 * binary for a process test), or when no container test, no browser test or no transcript replay
 * ran, or when a Dynomite image was given and no real-Dynomite container test ran. A skipped test is coverage the
 * run silently lost.
 *
 * <p>Usage: {@code java scripts/SurefireSummary.java <repo root> <target folder name>
 * [--dynomite-image=present|absent] [--dynomite-binary=present|absent]} (both default to absent:
 * scripts/test.sh says which exist).
 *
 * <p>A container test is a test class whose simple name contains {@code Container} (it needs
 * Docker and the local images); a browser test one whose simple name contains {@code Browser} (it
 * needs headless Chromium); a real-Dynomite test one whose class name contains
 * {@code RealDynomite} (a container one runs the Dynomite image, any other the binary as
 * processes). A container, browser or real-Dynomite test class whose report lists no test case at
 * all was skipped as a whole (an assumption failing in {@code @BeforeAll} leaves exactly that:
 * {@code tests="0"} and no {@code <skipped>}), and counts as skipped.
 */
public class SurefireSummary {
  private static final Pattern CONTAINER_TEST = Pattern.compile("(.*\\.)?[^.]*Container[^.]*");
  private static final Pattern BROWSER_TEST = Pattern.compile("(.*\\.)?[^.]*Browser[^.]*");
  private static final Pattern REAL_DYNOMITE = Pattern.compile(".*RealDynomite.*");
  private static boolean imagePresent;
  private static boolean binaryPresent;

  /** The test that replays each recorded transcript on the companion: one test case per transcript. */
  private static final String TRANSCRIPT_REPLAY = ".TranscriptReplayTest";

  /** How io.dyno.companion.dynomite.DynomiteAssumptions words a skip for lack of the binary. */
  private static final String NO_BINARY = "no Dynomite binary found";

  /**
   * A real-Dynomite test may skip only when what it runs is absent from this machine: a
   * *RealDynomite*Container* class without the image; any other *RealDynomite* class, or any test
   * skipped for lack of the binary (DynomiteAssumptions), without the binary.
   */
  private static boolean maySkip(String cls, String reason) {
    if (reason.contains(NO_BINARY)) return !binaryPresent;
    if (!REAL_DYNOMITE.matcher(cls).matches()) return false;
    return CONTAINER_TEST.matcher(cls).matches() ? !imagePresent : !binaryPresent;
  }

  /** What a skipped test of each kind was missing, and how to get it. */
  private static String hint(String cls, String reason) {
    if (reason.contains(NO_BINARY)) {
      return "a Dynomite binary was given (DYNO_DYNOMITE_BINARY), yet this test did not find it";
    }
    if (REAL_DYNOMITE.matcher(cls).matches()) {
      return CONTAINER_TEST.matcher(cls).matches()
          ? "a real Dynomite image was given, so this test must run (see its skip reason)"
          : "a real Dynomite binary was given (DYNO_DYNOMITE_BINARY), so this test must run";
    }
    if (CONTAINER_TEST.matcher(cls).matches()) {
      return "Docker or the images were not usable: run scripts/setup-test-env.sh and scripts/build-images.sh";
    }
    if (BROWSER_TEST.matcher(cls).matches()) {
      return "no headless browser: run scripts/setup-test-env.sh (installs the Debian package chromium)";
    }
    return "skips are not allowed in CI: make the test run here, or move a measurement out of the test suite";
  }

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : ".");
    String target = args.length > 1 ? args[1] : "target";
    for (int i = 2; i < args.length; i++) {
      switch (args[i]) {
        case "--dynomite-image=present" -> imagePresent = true;
        case "--dynomite-image=absent" -> imagePresent = false;
        case "--dynomite-binary=present" -> binaryPresent = true;
        case "--dynomite-binary=absent" -> binaryPresent = false;
        default -> throw new IllegalArgumentException("unknown argument '" + args[i]
            + "' (expected --dynomite-image=present|absent, --dynomite-binary=present|absent)");
      }
    }
    List<Path> reports = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root, 6)) {
      files.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml"))
          .filter(p -> p.getParent() != null && p.getParent().getParent() != null
              && p.getParent().getParent().getFileName().toString().equals(target)
              && p.getParent().getFileName().toString().matches("(surefire|failsafe)-reports"))
          .forEach(reports::add);
    }
    int tests = 0, failed = 0, skipped = 0, containerRan = 0, browserRan = 0, realDynomiteContainerRan = 0,
        realDynomiteProcessRan = 0, transcriptsReplayed = 0, transcriptsFailed = 0;
    TreeSet<String> badSkips = new TreeSet<>();
    TreeSet<String> allowedSkips = new TreeSet<>();
    TreeSet<String> failures = new TreeSet<>();
    DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
    for (Path report : reports) {
      Document doc = parse(dbf, report);
      NodeList cases = doc.getElementsByTagName("testcase");
      String suite = doc.getDocumentElement().getAttribute("name");
      if (cases.getLength() == 0 && (CONTAINER_TEST.matcher(suite).matches() || BROWSER_TEST.matcher(suite).matches()
          || REAL_DYNOMITE.matcher(suite).matches())) {
        String id = suite + " (whole class: no test case reported, e.g. an assumption failed in @BeforeAll)";
        tests++;
        skipped++;
        if (maySkip(suite, "")) {
          allowedSkips.add(id);
        } else {
          badSkips.add(id + " -> " + hint(suite, ""));
        }
      }
      for (int i = 0; i < cases.getLength(); i++) {
        Element tc = (Element) cases.item(i);
        String cls = tc.getAttribute("classname");
        if (cls.isEmpty()) cls = suite;
        String id = cls + "." + tc.getAttribute("name");
        tests++;
        if (has(tc, "skipped")) {
          skipped++;
          String why = reason(tc, "skipped");
          String withWhy = id + (why.isEmpty() ? "" : " (" + why + ")");
          if (maySkip(cls, why)) {
            allowedSkips.add(withWhy);
          } else {
            badSkips.add(withWhy + " -> " + hint(cls, why));
          }
        } else if (has(tc, "failure") || has(tc, "error")) {
          failed++;
          failures.add(id);
          if (cls.endsWith(TRANSCRIPT_REPLAY)) transcriptsFailed++;
        } else {
          if (cls.endsWith(TRANSCRIPT_REPLAY)) transcriptsReplayed++;
          if (CONTAINER_TEST.matcher(cls).matches()) containerRan++;
          if (BROWSER_TEST.matcher(cls).matches()) browserRan++;
          if (REAL_DYNOMITE.matcher(cls).matches()) {
            if (CONTAINER_TEST.matcher(cls).matches()) realDynomiteContainerRan++;
            else realDynomiteProcessRan++;
          }
        }
      }
    }
    int passed = tests - failed - skipped;
    for (String f : failures) System.out.println("FAILED: " + f);
    for (String s : allowedSkips) System.out.println("skipped (allowed: no real Dynomite binary/image given): " + s);
    for (String s : badSkips) System.out.println("SKIPPED TEST (not allowed): " + s);
    System.out.println("container tests run: " + containerRan + ", browser tests run: " + browserRan
        + ", real-Dynomite tests run: " + realDynomiteContainerRan + " in containers (image "
        + (imagePresent ? "present" : "absent") + "), " + realDynomiteProcessRan + " as processes (binary "
        + (binaryPresent ? "present" : "absent") + ") (reports read: " + reports.size() + ")");
    System.out.println("transcripts of real Dynomite replayed on the companion: " + transcriptsReplayed + " matched, "
        + transcriptsFailed + " differed (io.dyno.companion.diff.TranscriptReplayTest)");
    System.out.println("summary: " + passed + " passed, " + failed + " failed, " + skipped + " skipped");
    int rc = 0;
    if (reports.isEmpty()) {
      System.out.println("ERROR: no test reports found under " + root + " (*/" + target + "/surefire-reports)");
      rc = 1;
    }
    if (failed > 0) rc = 1;
    if (!badSkips.isEmpty()) {
      System.out.println("ERROR: " + badSkips.size() + " test(s) were skipped; only *RealDynomite* tests may skip, "
          + "and only when the real Dynomite they need is absent. Each line above says what was missing.");
      rc = 1;
    }
    if (transcriptsReplayed + transcriptsFailed == 0) {
      System.out.println("ERROR: no transcript was replayed: nothing held the companion to real Dynomite");
      rc = 1;
    }
    if (containerRan == 0) {
      System.out.println("ERROR: no container test ran");
      rc = 1;
    }
    if (imagePresent && realDynomiteContainerRan == 0) {
      System.out.println("ERROR: the real Dynomite image exists but no *RealDynomite*Container* test ran");
      rc = 1;
    }
    if (browserRan == 0) {
      System.out.println("ERROR: no browser test ran (BenchReportBrowserTest checks the bench report in headless Chromium)");
      rc = 1;
    }
    System.exit(rc);
  }

  /** Characters XML 1.0 forbids, which surefire copies into reports from a test's output (fuzzers print raw input). */
  private static final Pattern NOT_XML = Pattern.compile("[^\\x09\\x0A\\x0D\\x20-\\uD7FF\\uE000-\\uFFFD\\x{10000}-\\x{10FFFF}]");

  private static Document parse(DocumentBuilderFactory dbf, Path p) throws Exception {
    try {
      // Decoded leniently too: a malformed byte becomes U+FFFD instead of failing the whole summary.
      String xml = NOT_XML.matcher(new String(Files.readAllBytes(p), java.nio.charset.StandardCharsets.UTF_8)).replaceAll("?");
      return dbf.newDocumentBuilder().parse(new org.xml.sax.InputSource(new java.io.StringReader(xml)));
    } catch (IOException | org.xml.sax.SAXException e) {
      throw new IllegalStateException("cannot read test report " + p + ": " + e.getMessage(), e);
    }
  }

  private static boolean has(Element tc, String tag) {
    return tc.getElementsByTagName(tag).getLength() > 0;
  }

  private static String reason(Element tc, String tag) {
    Element e = (Element) tc.getElementsByTagName(tag).item(0);
    String m = e.getAttribute("message");
    if (m == null || m.isBlank()) {
      // Surefire 3 puts the assumption's message in the element's text: its first line.
      m = e.getTextContent() == null ? "" : e.getTextContent().strip().split("\n", 2)[0];
      m = m.replaceFirst("^org\\.opentest4j\\.TestAbortedException: ", "");
    }
    return m.replaceAll("\\s+", " ").trim();
  }
}
