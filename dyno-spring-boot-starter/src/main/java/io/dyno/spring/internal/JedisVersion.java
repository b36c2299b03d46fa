package io.dyno.spring.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Jedis on the class path against the one Dyno is built with. Spring Boot's parent pom manages
 * Jedis too, and a parent's managed version wins over an imported BOM: an application on a Boot
 * parent gets Boot's Jedis unless it sets {@code jedis.version}. Checked before the client is made,
 * so that such an application fails naming both versions rather than with a linkage error.
 */
public final class JedisVersion {
  /** Written by Jedis into its jar: the version the client reports to the server, too. */
  private static final String[] JEDIS_POM_PROPERTIES = {
    "redis/clients/jedis/pom.properties", "META-INF/maven/redis.clients/jedis/pom.properties"
  };

  private JedisVersion() {}

  /** The Jedis version Dyno is built and tested with (the build's {@code jedis.version}). */
  public static String required() {
    return load(JedisVersion.class.getClassLoader(), "io/dyno/spring/internal/jedis.properties")
        .getProperty("required");
  }

  /** The version of the Jedis on {@code loader}'s class path, or null when Jedis does not say. */
  public static String found(ClassLoader loader) {
    for (String resource : JEDIS_POM_PROPERTIES) {
      String version = load(loader, resource).getProperty("version");
      if (version != null && !version.isBlank()) {
        return version.trim();
      }
    }
    return null;
  }

  /**
   * Fails when the Jedis on {@code loader}'s class path is older than {@link #required()}; a newer
   * one, or one that does not say its version, is accepted.
   *
   * @throws JedisVersionException naming both versions
   */
  public static void check(ClassLoader loader) {
    String found = found(loader);
    String required = required();
    if (found != null && isOlder(found, required)) {
      throw new JedisVersionException(found, required);
    }
  }

  /** Whether {@code version} is older than {@code than}, comparing the leading numbers (8.0.2-beta as 8.0.2). */
  static boolean isOlder(String version, String than) {
    int[] a = numbers(version);
    int[] b = numbers(than);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      int x = i < a.length ? a[i] : 0;
      int y = i < b.length ? b[i] : 0;
      if (x != y) {
        return x < y;
      }
    }
    return false;
  }

  private static int[] numbers(String version) {
    String[] parts = version.trim().split("[.-]");
    int n = 0;
    while (n < parts.length
        && !parts[n].isEmpty()
        && parts[n].chars().allMatch(Character::isDigit)) {
      n++;
    }
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = Integer.parseInt(parts[i]);
    }
    return out;
  }

  private static Properties load(ClassLoader loader, String resource) {
    Properties p = new Properties();
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + resource + ": " + e.getMessage(), e);
    }
    return p;
  }
}
