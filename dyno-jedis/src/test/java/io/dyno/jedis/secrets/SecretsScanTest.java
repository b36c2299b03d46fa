package io.dyno.jedis.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.jedis.testing.RedisServers;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The secrets scan: a real Redis requiring a distinctive password; {@link SecretsScenario} runs in
 * a child JVM with every logger (Dyno's, Jedis's, everyone's) at TRACE and prints every exception
 * (stack and causes), {@code snapshot()} and every JMX attribute, config {@code describe()} and
 * toString, hosts and topology. Fails if the password appears anywhere in that output.
 */
class SecretsScanTest {
  @Test
  void thePasswordAppearsNowhereInAnythingTheClientPrints() throws Exception {
    String password = "Zq7-" + UUID.randomUUID().toString().replace("-", "") + "-pw";
    int deadPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      deadPort = s.getLocalPort();
    }
    try (RedisServers redis = new RedisServers(1, 1, "--requirepass", password)) {
      Path out = Files.createTempFile("dyno-secrets", ".log");
      try {
        List<String> cmd = new ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=trace",
            "-Dorg.slf4j.simpleLogger.showDateTime=false",
            "-cp",
            System.getProperty("java.class.path"),
            SecretsScenario.class.getName(),
            String.valueOf(redis.ports().get(0)),
            password,
            String.valueOf(deadPort)));
        Process p = new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("scenario finished").isTrue();
        String output = Files.readString(out, StandardCharsets.UTF_8);
        // The scan only means something if everything it scans was really printed.
        assertThat(output)
            .as(output)
            .contains(
                "== done",
                "== get: v",
                "== get via host password: v",
                "== wrongtype threw:",
                "== null key threw:",
                "== wrong password threw:",
                "== unknown ACL user threw:",
                "== dead node threw:",
                "== jmx io.dyno:",
                "Snapshot = ",
                "== config describe: ");
        assertThat(output)
            .as("TRACE/DEBUG logging was captured")
            .containsAnyOf(" DEBUG ", " TRACE ");
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).as("the configured password leaked").doesNotContain(password);
        // Nor its first half (a truncated secret is still a leak).
        assertThat(output).doesNotContain(password.substring(0, password.length() / 2));
      } finally {
        Files.deleteIfExists(out);
      }
    }
  }
}
