package io.dyno.companion.dynomite;

import java.util.List;

/**
 * One node's {@code dynomite.yml}, in Dynomite's own format, for loopback test clusters: every
 * listener on 127.0.0.1 (the admin port too, whose default is 0.0.0.0), one Redis backend, murmur
 * hashing, and {@code stats_interval} short enough for tests to read {@code /info} counters.
 */
public final class DynomiteYaml {
  /** Another node, as Dynomite's simple_provider reads it: {@code host:peerPort:rack:dc:token}. */
  public record Seed(int peerPort, String rack, String datacenter, long token) {
    public String line() {
      return "127.0.0.1:" + peerPort + ":" + rack + ":" + datacenter + ":" + token;
    }
  }

  /** What one node listens on and owns. */
  public record Node(
      String datacenter,
      String rack,
      long token,
      int clientPort,
      int peerPort,
      int adminPort,
      int redisPort) {
    public Seed seed() {
      return new Seed(peerPort, rack, datacenter, token);
    }
  }

  /** Dynomite's {@code timeout} in the sample configurations. */
  public static final long DEFAULT_TIMEOUT_MS = 5_000;

  private DynomiteYaml() {}

  /**
   * @param hashtag two characters such as {@code "{}"}, or null
   * @param statsIntervalMs how often Dynomite recomputes its {@code /info} counters
   */
  public static String of(Node node, List<Seed> seeds, String hashtag, long statsIntervalMs) {
    return of(node, seeds, hashtag, statsIntervalMs, DEFAULT_TIMEOUT_MS);
  }

  /**
   * @param timeoutMs Dynomite's {@code timeout}: how long a request waits for a peer or its Redis
   *     before the client gets an error (e.g. {@code Peer: Peer Node refused connection})
   */
  public static String of(
      Node node, List<Seed> seeds, String hashtag, long statsIntervalMs, long timeoutMs) {
    StringBuilder y = new StringBuilder();
    y.append("dyn_o_mite:\n");
    y.append("  datacenter: ").append(node.datacenter()).append('\n');
    y.append("  rack: ").append(node.rack()).append('\n');
    y.append("  listen: 127.0.0.1:").append(node.clientPort()).append('\n');
    y.append("  dyn_listen: 127.0.0.1:").append(node.peerPort()).append('\n');
    y.append("  stats_listen: 127.0.0.1:").append(node.adminPort()).append('\n');
    y.append("  env: network\n");
    y.append("  dyn_seed_provider: simple_provider\n");
    if (!seeds.isEmpty()) {
      y.append("  dyn_seeds:\n");
      for (Seed s : seeds) {
        y.append("  - ").append(s.line()).append('\n');
      }
    }
    y.append("  tokens: '").append(node.token()).append("'\n");
    y.append("  servers:\n");
    y.append("  - 127.0.0.1:").append(node.redisPort()).append(":1\n");
    y.append("  data_store: 0\n");
    y.append("  hash: murmur\n");
    if (hashtag != null) {
      y.append("  hash_tag: \"").append(hashtag).append("\"\n");
    }
    y.append("  stats_interval: ").append(statsIntervalMs).append('\n');
    y.append("  timeout: ").append(timeoutMs).append('\n');
    y.append("  mbuf_size: 16384\n");
    y.append("  max_msgs: 300000\n");
    return y.toString();
  }
}
