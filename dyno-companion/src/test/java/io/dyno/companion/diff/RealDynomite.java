package io.dyno.companion.diff;

import io.dyno.companion.internal.RedisProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Dynomite cluster as local processes (one dynomite and one redis-server per node, loopback,
 * free ports), just enough for the differential test. Tokens as the companion's: evenly spaced,
 * the same in every rack. (The project's DynomiteCluster will replace this once it lands.)
 */
final class RealDynomite implements Target {
  private record Node(String rack, int index, long token, int client, int peer, int admin, RedisProcess redis,
      Path yml, Path log) {}

  private final List<Node> nodes = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();
  private final Path binary;
  private final Path dir;
  private boolean closed;

  /** The binary: -Ddyno.dynomite.binary, env DYNO_DYNOMITE_BINARY, else shared/dynomite/dynomite in an ancestor directory. */
  static Optional<Path> binary() {
    String p = System.getProperty("dyno.dynomite.binary", System.getenv("DYNO_DYNOMITE_BINARY"));
    if (p != null && !p.isBlank()) {
      return Optional.of(Paths.get(p)).filter(Files::isExecutable);
    }
    for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path c = d.resolve("shared/dynomite/dynomite");
      if (Files.isExecutable(c)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  RealDynomite(Path binary, int racks, int perRack, String hashtag, Duration peerTimeout) throws IOException {
    this.binary = binary;
    this.dir = Files.createTempDirectory("diff-dynomite");
    try {
      for (int r = 1; r <= racks; r++) {
        for (int i = 0; i < perRack; i++) {
          RedisProcess redis = RedisProcess.start("redis-server");
          String name = "rack" + r + "-" + i;
          nodes.add(new Node("rack" + r, i, i * (0xffffffffL / perRack), RedisProcess.freePort(), RedisProcess.freePort(),
              RedisProcess.freePort(), redis, dir.resolve(name + ".yml"), dir.resolve(name + ".log")));
        }
      }
      for (Node n : nodes) {
        StringBuilder y = new StringBuilder("dyn_o_mite:\n")
            .append("  datacenter: dc1\n  rack: ").append(n.rack).append('\n')
            .append("  listen: 127.0.0.1:").append(n.client).append('\n')
            .append("  dyn_listen: 127.0.0.1:").append(n.peer).append('\n')
            .append("  stats_listen: 127.0.0.1:").append(n.admin).append('\n')
            .append("  stats_interval: 1000\n  env: network\n  dyn_seed_provider: simple_provider\n  dyn_seeds:\n");
        for (Node m : nodes) {
          if (m != n) {
            y.append("  - 127.0.0.1:").append(m.peer).append(':').append(m.rack).append(":dc1:").append(m.token).append('\n');
          }
        }
        y.append("  tokens: '").append(n.token).append("'\n  servers:\n  - 127.0.0.1:").append(n.redis.port()).append(":1\n")
            .append("  data_store: 0\n  hash: murmur\n");
        if (hashtag != null) {
          y.append("  hash_tag: \"").append(hashtag).append("\"\n");
        }
        y.append("  timeout: ").append(peerTimeout.toMillis()).append("\n  mbuf_size: 16384\n  max_msgs: 300000\n");
        Files.writeString(n.yml, y.toString());
        processes.add(new ProcessBuilder(binary.toString(), "-c", n.yml.toString(), "-o", n.log.toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
      }
      awaitReplicating(Duration.ofSeconds(30));
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Dynomite drops replication until its peers are connected: ready when writes through every node,
   * to a key of each token, reach every rack's Redis. Polled with a bound, the probe rewritten each time.
   */
  private void awaitReplicating(Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    List<String> missing = new ArrayList<>();
    while (true) {
      missing.clear();
      for (int i = 0; i < nodes.size(); i++) {
        for (String tag : List.of("foo", "bar")) { // with tokens {0, 2^31-1}: owned by node 0 and node 1
          String key = "{" + tag + "}ready:" + i;
          Wire.exchange(nodes.get(i).client, Wire.cmd("SET", key, "1"), 1, 1000);
          int copies = 0;
          for (Node n : nodes) {
            if (Wire.exchange(n.redis.port(), Wire.cmd("EXISTS", key), 1, 1000).text().equals(":1\r\n")) {
              copies++;
            }
          }
          if (copies != racks()) {
            missing.add(key + " through " + nodes.get(i).rack + "-" + nodes.get(i).index + " (" + copies + " copies)");
          }
        }
      }
      if (missing.isEmpty()) {
        for (Node n : nodes) {
          Wire.exchange(n.redis.port(), Wire.cmd("FLUSHALL"), 1, 2000);
        }
        return;
      }
      if (System.nanoTime() > deadline) {
        StringBuilder logs = new StringBuilder();
        for (Node n : nodes) {
          try {
            logs.append("\n--- ").append(n.log).append('\n').append(Files.readString(n.log, StandardCharsets.UTF_8));
          } catch (IOException e) {
            logs.append("\n--- ").append(n.log).append(": ").append(e);
          }
        }
        throw new IllegalStateException("real Dynomite cluster not replicating after " + bound + ": " + missing + logs);
      }
      Wire.pause(50); // poll interval of a bounded wait
    }
  }

  private int racks() {
    return (int) nodes.stream().map(Node::rack).distinct().count();
  }

  @Override public String name() { return "dynomite " + binary; }
  @Override public int size() { return nodes.size(); }
  @Override public String label(int i) { return nodes.get(i).rack + "-" + nodes.get(i).index; }
  @Override public int clientPort(int i) { return nodes.get(i).client; }
  @Override public int peerPort(int i) { return nodes.get(i).peer; }
  @Override public int adminPort(int i) { return nodes.get(i).admin; }
  @Override public int redisPort(int i) { return nodes.get(i).redis.port(); }

  @Override
  public void pause(int i) {
    signal(i, "STOP");
  }

  @Override
  public void resume(int i) {
    signal(i, "CONT");
  }

  private void signal(int i, String sig) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(processes.get(i).pid())).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + processes.get(i).pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Process p : processes) {
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    for (Node n : nodes) {
      n.redis.close();
    }
  }

  @Override
  public String toString() {
    return name() + " (configs and logs in " + dir + ")";
  }
}
