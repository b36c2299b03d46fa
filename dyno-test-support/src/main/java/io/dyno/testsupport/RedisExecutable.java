package io.dyno.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds the redis-server binary before anything is started, so a machine without Redis fails with
 * one sentence saying what to install instead of an {@code IOException} from {@code ProcessBuilder}.
 */
final class RedisExecutable {
  /** System property that names the binary (a path, or a name looked up on PATH). */
  static final String PROPERTY = "dyno.redis-server";
  /** Environment variable read when the property is not set. */
  static final String ENVIRONMENT = "DYNO_REDIS_SERVER";

  static final String DEFAULT_NAME = "redis-server";

  private RedisExecutable() {}

  /** The configured binary: the system property, else the environment variable, else {@code redis-server}. */
  static String configured() {
    String fromProperty = System.getProperty(PROPERTY);
    if (fromProperty != null && !fromProperty.isBlank()) {
      return fromProperty.trim();
    }
    String fromEnvironment = System.getenv(ENVIRONMENT);
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return fromEnvironment.trim();
    }
    return DEFAULT_NAME;
  }

  /**
   * The absolute path of {@code nameOrPath}: taken as is when it contains a separator, else searched
   * on PATH and then in the usual install folders (a test JVM's PATH is often trimmed).
   *
   * @throws IllegalStateException naming what was searched and what to install
   */
  static Path resolve(String nameOrPath) {
    if (nameOrPath.contains(File.separator)) {
      Path given = Path.of(nameOrPath);
      if (Files.isExecutable(given)) {
        return given.toAbsolutePath();
      }
      throw new IllegalStateException(nameOrPath + " is not an executable file. " + howToInstall());
    }
    List<Path> searched = new ArrayList<>();
    for (Path dir : searchPath()) {
      Path candidate = dir.resolve(nameOrPath);
      searched.add(dir);
      if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
        return candidate.toAbsolutePath();
      }
    }
    throw new IllegalStateException(
        nameOrPath + " was not found on PATH or in " + searched + ". " + howToInstall());
  }

  private static Set<Path> searchPath() {
    Set<Path> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          dirs.add(Path.of(entry));
        }
      }
    }
    dirs.add(Path.of("/usr/bin"));
    dirs.add(Path.of("/usr/local/bin"));
    dirs.add(Path.of("/opt/homebrew/bin"));
    return dirs;
  }

  private static String howToInstall() {
    return "Dyno's tests run a real Redis server: install Redis 6 or later (Debian/Ubuntu: apt-get install "
        + "redis-server; Fedora: dnf install redis; macOS: brew install redis), or name the binary with -D"
        + PROPERTY + "=/path/to/redis-server or the " + ENVIRONMENT + " environment variable.";
  }
}
