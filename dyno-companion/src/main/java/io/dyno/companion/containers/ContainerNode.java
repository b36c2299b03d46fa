package io.dyno.companion.containers;

import io.dyno.core.Host;

/**
 * One cluster node in containers: its server process (companion or Dynomite) and, with a Redis
 * backend, its own redis-server in a second container. {@link #pause()}, {@link #kill()} and
 * friends act on the server process; reach the Redis process through {@link #redis()}.
 */
public final class ContainerNode {
  private final String datacenter;
  private final String rack;
  private final int indexInRack;
  private final long token;
  private final int clientPort;
  private final int peerPort;
  private final int adminPort;
  private final ContainerProcess server;
  private final ContainerProcess redis; // null for the in-memory backend

  ContainerNode(
      String datacenter,
      String rack,
      int indexInRack,
      long token,
      int clientPort,
      int peerPort,
      int adminPort,
      ContainerProcess server,
      ContainerProcess redis) {
    this.datacenter = datacenter;
    this.rack = rack;
    this.indexInRack = indexInRack;
    this.token = token;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.adminPort = adminPort;
    this.server = server;
    this.redis = redis;
  }

  public String datacenter() {
    return datacenter;
  }

  public String rack() {
    return rack;
  }
  /** The node's position in its rack (0-based, by token). */
  public int indexInRack() {
    return indexInRack;
  }

  public long token() {
    return token;
  }
  /** The client (RESP) port on 127.0.0.1. */
  public int clientPort() {
    return clientPort;
  }

  public int peerPort() {
    return peerPort;
  }

  public int adminPort() {
    return adminPort;
  }
  /** The Redis port, or -1 for the in-memory backend. */
  public int redisPort() {
    return redis == null ? -1 : redis.port();
  }
  /** {@code http://127.0.0.1:<adminPort>}. */
  public String adminUrl() {
    return "http://127.0.0.1:" + adminPort;
  }

  /** The node as Dyno sees it (status UP; {@link ContainerCluster#hostSupplier()} reports live status). */
  public Host host() {
    Host.Builder b = Host.builder("127.0.0.1", clientPort)
        .ipAddress("127.0.0.1")
        .rack(rack)
        .datacenter(datacenter);
    if (redis != null) {
      b.datastorePort(redis.port());
    }
    return b.build();
  }

  /** The node's server process (companion or Dynomite). */
  public ContainerProcess server() {
    return server;
  }

  /** The node's redis-server process; fails for the in-memory backend. */
  public ContainerProcess redis() {
    if (redis == null) {
      throw new IllegalStateException(
          "node " + this + " has the in-memory backend: no redis container");
    }
    return redis;
  }

  /** Freezes the server process (docker pause): a hung node. */
  public void pause() {
    server.pause();
  }
  /** Thaws it. */
  public void unpause() {
    server.unpause();
  }
  /** Kills the server process (docker kill). */
  public void kill() {
    server.kill();
  }
  /** Starts the server process again on the same ports and waits until it answers PING. */
  public void restart() {
    server.restart();
  }
  /** Whether the server process runs (paused counts as running). */
  public boolean isRunning() {
    return server.isRunning();
  }

  ContainerProcess redisOrNull() {
    return redis;
  }

  @Override
  public String toString() {
    return datacenter + "/" + rack + "/" + indexInRack + " 127.0.0.1:" + clientPort + " token "
        + token;
  }
}
