package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's stock application: src/it/stock-boot-app, a new Maven project with
 * spring-boot-starter-parent as its parent, the starter, web, Actuator and the dyno-bom import (as
 * docs/spring-boot.md sets one up), built by Maven in a child process and run with {@code java -jar}
 * against a companion cluster. Then the same application without its {@code jedis.version} line,
 * so with the Jedis Spring Boot manages: its start must fail naming both versions and the fix.
 *
 * <p>Dyno's artifacts come from a local repository of the build's own (target/it-repo, filled by the
 * invoker plugin before this runs), never from the shared ~/.m2, which the child build reads as a
 * remote repository of releases only. Runs in the integration-test phase (failsafe), after the jar
 * is made: 1 to 4 minutes, most of it the two Maven builds of the application (the first one also
 * fetches what ~/.m2 lacks, such as Spring Boot's own Jedis).
 */
class StockBootApplicationIT {
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private static final Path WORK = Paths.get(property("dyno.it.work"));
  private static CompanionCluster cluster;
  private static String greeting;

  private final List<Process> started = new ArrayList<>();

  private static String property(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "system property " + name + " is not set: run through Maven (mvn verify in the starter)");
    }
    return value;
  }

  @BeforeAll
  static void startCluster() {
    cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(1)
        .basePort(CompanionCluster.freeBasePort(2))
        .start();
    greeting = "hello " + UUID.randomUUID();
    try (DynoJedisClient writer = DynoJedisClient.builder()
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build()) {
      writer.set("greeting", greeting);
    }
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void stopApplications() {
    started.forEach(Process::destroyForcibly);
  }

  @Test
  void theStockApplicationStartsServesAGetAndShowsDynoInItsHealth() throws Exception {
    Path app = application("with-jedis-version", true);
    build(app);
    int port = freePort();
    Output out = new Output();
    Process p = run(app, out, port);

    await("the application's GET through the injected client")
        .atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> {
          assertThat(p.isAlive())
              .as("the application is running; its output:%n%s", out)
              .isTrue();
          assertThat(out.text()).contains("greeting=" + greeting);
        });
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> health = http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body().replaceAll("\\s", "")).contains("\"dyno\":{\"status\":\"UP\"");
  }

  @Test
  void withoutTheJedisVersionLineTheStartFailsInOneLineNamingBothVersionsAndTheFix()
      throws Exception {
    Path app = application("without-jedis-version", false);
    build(app);
    Output out = new Output();
    Process p = run(app, out, freePort());
    assertThat(p.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
        .as("the application stops; its output:%n%s", out)
        .isTrue();
    out.drained();
    assertThat(p.exitValue()).isNotZero();
    String jedis = property("jedis.version");
    String line = out.text()
        .lines()
        .filter(l -> l.startsWith("Dyno needs Jedis"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no summary line in:\n" + out));
    assertThat(line)
        .matches("Dyno needs Jedis " + jedis.replace(".", "\\.")
            + " or newer but found Jedis \\d+\\.\\d+\\.\\d+ on the class path: .*")
        .doesNotContain("found Jedis " + jedis + " ")
        .contains("set <jedis.version>" + jedis + "</jedis.version> in your pom's <properties>");
    assertThat(out.text()).contains("APPLICATION FAILED TO START");
  }

  @Test
  void theDocsGiveThisApplicationsVersionsAndTheJedisLine() throws IOException {
    String docs = Files.readString(Paths.get(property("dyno.it.docs")));
    String pom = Files.readString(Paths.get(property("dyno.it.project"), "pom.xml"));
    assertThat(docs)
        .contains("<jedis.version>" + property("jedis.version") + "</jedis.version>")
        .contains("<artifactId>spring-boot-starter-parent</artifactId>\n  <version>"
            + property("spring-boot.version") + "</version>")
        .contains("<artifactId>dyno-bom</artifactId>\n      <version>" + property("dyno.version")
            + "</version>");
    for (String artifact : new String[] {
      "dyno-spring-boot-starter",
      "dyno-micrometer",
      "spring-boot-starter-web",
      "spring-boot-starter-actuator"
    }) {
      assertThat(docs).contains("<artifactId>" + artifact + "</artifactId>");
      assertThat(pom).contains("<artifactId>" + artifact + "</artifactId>");
    }
  }

  /** A copy of src/it/stock-boot-app with the build's versions, with or without the jedis.version line. */
  private static Path application(String name, boolean withJedisVersion) throws IOException {
    Path source = Paths.get(property("dyno.it.project"));
    Path target = WORK.resolve(name);
    deleteTree(target);
    try (Stream<Path> files = Files.walk(source)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path to = target.resolve(source.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    Path pom = target.resolve("pom.xml");
    String text = Files.readString(pom)
        .replace("@spring-boot.version@", property("spring-boot.version"))
        .replace("@dyno.version@", property("dyno.version"))
        .replace("@jedis.version@", property("jedis.version"));
    String line = "    <jedis.version>" + property("jedis.version") + "</jedis.version>\n";
    assertThat(text).contains(line);
    Files.writeString(pom, withJedisVersion ? text : text.replace(line, ""));
    return target;
  }

  /**
   * {@code mvn package} in {@code app}: Dyno from target/it-repo (the local repository), everything
   * else from ~/.m2 read as a remote repository (copied, not written) or from Maven Central.
   */
  private static void build(Path app) throws Exception {
    Path settings = app.resolve("it-settings.xml");
    String m2 =
        Paths.get(System.getProperty("user.home"), ".m2", "repository").toUri().toString();
    Files.writeString(settings, """
        <settings>
          <profiles>
            <profile>
              <id>shared-m2-releases</id>
              <repositories>
                <repository>
                  <id>shared-m2</id><url>%1$s</url>
                  <releases><checksumPolicy>ignore</checksumPolicy></releases>
                  <snapshots><enabled>false</enabled></snapshots>
                </repository>
              </repositories>
              <pluginRepositories>
                <pluginRepository>
                  <id>shared-m2</id><url>%1$s</url>
                  <releases><checksumPolicy>ignore</checksumPolicy></releases>
                  <snapshots><enabled>false</enabled></snapshots>
                </pluginRepository>
              </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles><activeProfile>shared-m2-releases</activeProfile></activeProfiles>
        </settings>
        """.formatted(m2));
    Path mvn = Paths.get(property("maven.home"), "bin", "mvn");
    Path log = app.resolve("build.log");
    Process p = new ProcessBuilder(
            mvn.toString(),
            "-B",
            "-ntp",
            "-s",
            settings.toString(),
            "-Dmaven.repo.local=" + property("dyno.it.repo"),
            "package")
        .directory(app.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
    boolean done = p.waitFor(BUILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done && p.exitValue() == 0)
        .as("mvn package in %s; its output:%n%s", app, Files.readString(log))
        .isTrue();
  }

  private Process run(Path app, Output out, int port) throws IOException {
    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    Process p = new ProcessBuilder(
            java.toString(),
            "-jar",
            app.resolve("target/cart-1.0.jar").toString(),
            "--server.address=127.0.0.1",
            "--server.port=" + port,
            "--dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl()
                + "/cluster_describe",
            "--dyno.local-rack=rack1")
        .directory(app.toFile())
        .redirectErrorStream(true)
        .start();
    started.add(p);
    out.readFrom(p.getInputStream());
    return p;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(f);
        }
      }
    }
  }

  /** A child process's output, read on a daemon thread as it comes. */
  private static final class Output {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private Thread reader;

    void readFrom(InputStream in) {
      reader = new Thread(
          () -> {
            byte[] buf = new byte[8192];
            try (in) {
              for (int n; (n = in.read(buf)) >= 0; ) {
                synchronized (bytes) {
                  bytes.write(buf, 0, n);
                }
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          },
          "stock-app-output");
      reader.setDaemon(true);
      reader.start();
    }

    /** Waits until the process's output has been read to its end. */
    void drained() throws InterruptedException {
      reader.join(Duration.ofSeconds(10).toMillis());
    }

    String text() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }

    @Override
    public String toString() {
      return text();
    }
  }
}
