package io.dyno.warmup;

import java.util.Objects;

/**
 * Where to reach one Dynomite node for a warm-up: its admin (stats) port and the Redis behind it.
 *
 * @param host the address of both (a Dynomite node and its Redis share a machine)
 * @param adminPort Dynomite's admin port ({@code stats_listen}, 22222 by default)
 * @param redisPort the port of the node's Redis (its {@code servers:} entry)
 */
public record WarmUpNode(String host, int adminPort, int redisPort) {
  public WarmUpNode {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    check(adminPort, "adminPort");
    check(redisPort, "redisPort");
  }

  /**
   * Reads {@code host:adminPort:redisPort}, as the sidecar's command line gives a node.
   *
   * @param spec e.g. {@code 10.0.0.5:22222:22122}
   * @return the node
   * @throws IllegalArgumentException naming the text when it is not that shape
   */
  public static WarmUpNode parse(String spec) {
    String[] p = spec == null ? new String[0] : spec.split(":");
    if (p.length != 3) {
      throw new IllegalArgumentException(
          "a node is host:adminPort:redisPort (e.g. 10.0.0.5:22222:22122), not '" + spec + "'");
    }
    try {
      return new WarmUpNode(p[0], Integer.parseInt(p[1]), Integer.parseInt(p[2]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "a node is host:adminPort:redisPort with numeric ports, not '" + spec + "'", e);
    }
  }

  private static void check(int port, String name) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(name + " must be 1..65535, not " + port);
    }
  }

  @Override
  public String toString() {
    return host + ":" + adminPort + ":" + redisPort;
  }
}
