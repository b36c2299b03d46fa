package io.dyno.companion.containers;

import java.util.List;

/** Writes one node's {@code dynomite.yml} (Dynomite's own configuration format). */
final class DynomiteConfig {
  private DynomiteConfig() {}

  /** A seed: another node, as Dynomite's simple_provider reads it. */
  record Seed(int peerPort, String rack, String datacenter, long token) {
    String line() {
      return "127.0.0.1:" + peerPort + ":" + rack + ":" + datacenter + ":" + token;
    }
  }

  static String yaml(String datacenter, String rack, long token, int clientPort, int peerPort,
      int adminPort, int redisPort, List<Seed> seeds, String hashtag) {
    StringBuilder y = new StringBuilder();
    y.append("dyn_o_mite:\n");
    y.append("  datacenter: ").append(datacenter).append('\n');
    y.append("  rack: ").append(rack).append('\n');
    y.append("  listen: 127.0.0.1:").append(clientPort).append('\n');
    y.append("  dyn_listen: 127.0.0.1:").append(peerPort).append('\n');
    y.append("  stats_listen: 127.0.0.1:").append(adminPort).append('\n');
    y.append("  dyn_seed_provider: simple_provider\n");
    if (!seeds.isEmpty()) {
      y.append("  dyn_seeds:\n");
      for (Seed s : seeds) {
        y.append("  - ").append(s.line()).append('\n');
      }
    }
    y.append("  tokens: '").append(token).append("'\n");
    y.append("  servers:\n");
    y.append("  - 127.0.0.1:").append(redisPort).append(":1\n");
    y.append("  data_store: 0\n");
    y.append("  hash: murmur\n");
    if (hashtag != null) {
      y.append("  hash_tag: \"").append(hashtag).append("\"\n");
    }
    y.append("  timeout: 5000\n");
    // /info counters are recomputed every stats_interval ms (default 30 s): prompt for tests.
    y.append("  stats_interval: 500\n");
    y.append("  mbuf_size: 16384\n");
    y.append("  max_msgs: 300000\n");
    return y.toString();
  }
}
