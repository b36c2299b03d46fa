package io.dyno.loadgen.drivers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class loader Netflix Dyno runs in: every jar of the folder module dyno-loadgen-netflix builds
 * (its adapter, Netflix Dyno 1.7.2, Jedis 3.0.1, log4j 1.x, ...), over the platform class loader,
 * so nothing of this class path (Dyno's Jedis, slf4j-simple) is seen from it. One loader per JVM:
 * every round of a comparison runs its fresh client on classes loaded and compiled once, as Dyno's.
 */
final class NetflixDynoClassPath {
  /** The folder of Netflix Dyno's jars; scripts/loadgen.sh and the module's tests set it. */
  static final String PROPERTY = "dyno.loadgen.netflixDyno";

  private static ClassLoader loader;

  private NetflixDynoClassPath() {}

  static synchronized ClassLoader loader() {
    if (loader == null) {
      loader = open(System.getProperty(PROPERTY));
    }
    return loader;
  }

  static ClassLoader open(String folder) {
    if (folder == null || folder.isBlank()) {
      throw new IllegalArgumentException("driver netflix-dyno: Netflix Dyno's class path is not"
          + " known: set -D" + PROPERTY + "=<folder> (scripts/loadgen.sh sets it to"
          + " dyno-loadgen-netflix/target/netflix-dyno, which"
          + " mvn -pl dyno-loadgen -am package builds)");
    }
    Path dir = Path.of(folder);
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
        jars.add(p.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "driver netflix-dyno: cannot list Netflix Dyno's jars in "
              + dir.toAbsolutePath() + " (-D" + PROPERTY
              + "; mvn -pl dyno-loadgen -am package builds it)",
          e);
    }
    if (jars.isEmpty()) {
      throw new IllegalArgumentException("driver netflix-dyno: no jar in " + dir.toAbsolutePath()
          + " (-D" + PROPERTY + "; mvn -pl dyno-loadgen -am package builds it)");
    }
    return new URLClassLoader(
        "netflix-dyno", jars.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
