package io.dyno.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Jedis version check and its one-line summary. A class loader holding only a Jedis
 * pom.properties stands for an application's class path with another Jedis; the stock Spring Boot
 * application of StockBootApplicationIT shows the same with Boot's real Jedis.
 */
class JedisVersionTest {
  @TempDir
  Path dir;

  private ClassLoader jedisOf(String version) throws IOException {
    Path props = dir.resolve("redis/clients/jedis/pom.properties");
    Files.createDirectories(props.getParent());
    Files.writeString(props, "groupId=redis.clients\nartifactId=jedis\nversion=" + version + "\n");
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, null);
  }

  @Test
  void theRequiredVersionIsTheBuildsJedis() {
    // The build's jedis.version, filled into the jar: the same Jedis the tests run with.
    assertThat(JedisVersion.required())
        .matches("\\d+\\.\\d+\\.\\d+.*")
        .isEqualTo(JedisVersion.found(UnifiedJedis.class.getClassLoader()));
  }

  @Test
  void olderIsComparedNumberByNumber() {
    assertThat(JedisVersion.isOlder("7.0.0", "8.0.2")).isTrue();
    assertThat(JedisVersion.isOlder("8.0.1", "8.0.2")).isTrue();
    assertThat(JedisVersion.isOlder("8.0", "8.0.2")).isTrue();
    assertThat(JedisVersion.isOlder("8.0.2", "8.0.2")).isFalse();
    assertThat(JedisVersion.isOlder("8.0.10", "8.0.2")).isFalse();
    assertThat(JedisVersion.isOlder("9.0.0-beta1", "8.0.2")).isFalse();
    assertThat(JedisVersion.isOlder("8.0.2-SNAPSHOT", "8.0.2")).isFalse();
  }

  @Test
  void anOlderJedisFailsTheCheckNamingBothVersionsAndTheFix() throws IOException {
    String required = JedisVersion.required();
    assertThatThrownBy(() -> JedisVersion.check(jedisOf("7.0.0")))
        .isInstanceOf(JedisVersionException.class)
        .hasMessage("Dyno needs Jedis " + required + " or newer but found Jedis 7.0.0 on the class"
            + " path: set <jedis.version>" + required + "</jedis.version> in your pom's"
            + " <properties> (a Spring Boot parent manages Jedis, and its version wins over"
            + " dyno-bom's)");
  }

  @Test
  void theSameOrANewerJedisOrOneThatDoesNotSayPassesTheCheck() throws IOException {
    JedisVersion.check(UnifiedJedis.class.getClassLoader());
    JedisVersion.check(jedisOf("99.0.0"));
    JedisVersion.check(new URLClassLoader(new URL[0], null));
    assertThat(JedisVersion.found(new URLClassLoader(new URL[0], null))).isNull();
  }

  @Test
  void theAnalyzerSummarisesTheFailedCheckInOneLineWithTheFix() {
    BeanCreationException failure = new BeanCreationException(
        "dynoAutoConfiguration", "failed", new JedisVersionException("7.0.0", "8.0.2"));
    FailureAnalysis analysis = new JedisVersionFailureAnalyzer().analyze(failure);
    assertThat(analysis.getDescription())
        .doesNotContain("\n")
        .contains(
            "found Jedis 7.0.0", "Dyno needs Jedis 8.0.2", "<jedis.version>8.0.2</jedis.version>");
    assertThat(analysis.getAction()).contains("<jedis.version>8.0.2</jedis.version>");
    assertThat(analysis.getCause()).isSameAs(failure);
  }

  @Test
  void theAnalyzerNamesTheVersionsForJedissOwnLinkageErrorWhenTheJedisIsOlder() throws IOException {
    NoSuchMethodError fromJedis = new NoSuchMethodError(
        "'void redis.clients.jedis.UnifiedJedis.<init>(redis.clients.jedis.executors.CommandExecutor,"
            + " redis.clients.jedis.providers.ConnectionProvider, redis.clients.jedis.RedisProtocol,"
            + " redis.clients.jedis.csc.Cache)'");
    BeanCreationException failure =
        new BeanCreationException("dynoJedisClient", "failed", fromJedis);
    String required = JedisVersion.required();

    FailureAnalysis analysis = new JedisVersionFailureAnalyzer().analyze(failure, jedisOf("7.0.0"));
    assertThat(analysis.getDescription())
        .contains("found Jedis 7.0.0", "<jedis.version>" + required + "</jedis.version>");

    // The build's own Jedis is not older: that linkage error is not one this analyzer can name.
    assertThat(new JedisVersionFailureAnalyzer().analyze(failure)).isNull();
    // Nor is another library's.
    assertThat(new JedisVersionFailureAnalyzer()
            .analyze(new NoSuchMethodError("'void com.example.Thing.<init>()'"), jedisOf("7.0.0")))
        .isNull();
  }
}
