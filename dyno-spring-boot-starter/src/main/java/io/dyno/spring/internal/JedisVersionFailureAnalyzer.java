package io.dyno.spring.internal;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import redis.clients.jedis.UnifiedJedis;

/**
 * A start that failed on the Jedis version, told in one line with the fix: the check before the
 * client is made ({@link JedisVersionException}), or the linkage error Jedis itself raised where no
 * check ran (an application's own client bean). Ahead of Spring Boot's analyzer of missing methods,
 * which would describe Jedis's constructors instead of the version to set.
 */
public final class JedisVersionFailureAnalyzer implements FailureAnalyzer, Ordered {

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    return analyze(failure, UnifiedJedis.class.getClassLoader());
  }

  /** As {@link #analyze(Throwable)}, with Jedis loaded by {@code jedisLoader}. */
  FailureAnalysis analyze(Throwable failure, ClassLoader jedisLoader) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 64; t = t.getCause(), depth++) {
      if (t instanceof JedisVersionException e) {
        return analysis(e.found(), e.required(), failure);
      }
      if (t instanceof LinkageError && fromJedis(t)) {
        String found = JedisVersion.found(jedisLoader);
        String required = JedisVersion.required();
        // A newer Jedis than Dyno's, or one that does not say: not a case this analyzer can name.
        return found != null && JedisVersion.isOlder(found, required)
            ? analysis(found, required, failure)
            : null;
      }
    }
    return null;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  /** The one line a start that failed on the Jedis version prints (also the exception's message). */
  static String description(String found, String required) {
    return "Dyno needs Jedis " + required + " or newer but found Jedis " + found
        + " on the class path: set <jedis.version>" + required
        + "</jedis.version> in your pom's <properties>"
        + " (a Spring Boot parent manages Jedis, and its version wins over dyno-bom's)";
  }

  private static FailureAnalysis analysis(String found, String required, Throwable failure) {
    return new FailureAnalysis(
        description(found, required),
        "Set <jedis.version>" + required + "</jedis.version> in the <properties> of your pom"
            + " (Gradle with Spring's dependency-management plugin: ext['jedis.version'] = '"
            + required + "'), then rebuild.",
        failure);
  }

  private static boolean fromJedis(Throwable t) {
    String message = t.getMessage();
    return message != null
        && (message.contains("redis.clients.jedis") || message.contains("redis/clients/jedis"));
  }
}
