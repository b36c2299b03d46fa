package io.dyno.companion;

import io.dyno.companion.internal.NodeServer;
import io.dyno.core.Host;
import java.time.Duration;

/**
 * One node of a {@link CompanionCluster}: its ports, counters and fault controls. Every fault is
 * also reachable over the node's admin HTTP port (see {@code /fault/...}).
 */
public final class CompanionNode {
  private final NodeServer server;

  CompanionNode(NodeServer server) {
    this.server = server;
  }

  NodeServer server() {
    return server;
  }

  /** This node as a Dyno host (client port; datastore port when the backend is Redis), status UP. */
  public Host host() {
    Host.Builder b = Host.builder("127.0.0.1", clientPort())
        .ipAddress("127.0.0.1")
        .rack(rack())
        .datacenter(datacenter());
    if (redisPort() > 0) {
      b.datastorePort(redisPort());
    }
    return b.build();
  }

  public int clientPort() {
    return server.clientPort();
  }

  public int peerPort() {
    return server.peerPort();
  }

  public int adminPort() {
    return server.adminPort();
  }
  /** The port of this node's redis-server, or -1 for {@link Backend#MEMORY}. */
  public int redisPort() {
    return server.config().redisPort();
  }

  public long token() {
    return server.config().token();
  }

  public String rack() {
    return server.config().rack();
  }

  public String datacenter() {
    return server.config().datacenter();
  }
  /** {@code http://127.0.0.1:<adminPort>}. */
  public String adminUrl() {
    return "http://127.0.0.1:" + adminPort();
  }

  public CompanionStats stats() {
    return server.stats();
  }

  public void resetStats() {
    server.resetStats();
  }

  /** Whether the node is listening (not {@link #stop() stopped}). */
  public boolean isRunning() {
    return server.isRunning();
  }

  /** Closes the client and peer listeners and every connection, like a killed process. Data is kept. */
  public void stop() {
    server.stop();
  }
  /** Listens again on the same ports. */
  public void start() {
    server.start();
  }

  /** Accepts connections and reads requests but never answers (until {@link #unhang()}, for new requests). */
  public void hang() {
    server.faults().hang(true);
  }

  public void unhang() {
    server.faults().hang(false);
  }

  /** Delays every reply by {@code d} ({@link Duration#ZERO} clears). */
  public void delayReplies(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("delay must be >= 0, was " + d);
    }
    server.faults().delay(d);
  }

  /**
   * Answers every request with this error, e.g. {@code "ERR Peer: Peer Node is not connected"}
   * (without the leading {@code -}); null clears.
   */
  public void failWith(String errorReply) {
    server.faults().failWith(errorReply);
  }

  /** Drops every peer connection of this node and refuses new ones, both ways. */
  public void cutPeerLinks() {
    server.cutPeerLinks();
  }

  public void restorePeerLinks() {
    server.restorePeerLinks();
  }

  /** Makes the backend unreachable: local reads and writes answer {@code ERR Storage: Datastore refused connection}. */
  public void backendDown() {
    server.backendDown();
  }

  public void backendUp() {
    server.backendUp();
  }

  /** Clears hang, delay, error, cut peer links and backend down (a stopped node stays stopped). */
  public void clearFaults() {
    server.faults().clear();
    server.restorePeerLinks();
    server.backendUp();
  }

  @Override
  public String toString() {
    return datacenter() + "/" + rack() + " token " + token() + " client 127.0.0.1:" + clientPort()
        + " peer " + peerPort() + " admin " + adminUrl()
        + (redisPort() > 0 ? " redis " + redisPort() : "") + (isRunning() ? "" : " (stopped)");
  }
}
