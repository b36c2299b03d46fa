package io.dyno.companion.internal;

import io.dyno.companion.CompanionStats;
import io.netty.channel.EventLoopGroup;
import java.util.List;

/** One companion node (skeleton: filled in next). */
public final class NodeServer implements AutoCloseable {
  private final NodeConfig config;
  private final Faults faults = new Faults();

  public NodeServer(NodeConfig config, EventLoopGroup group) {
    this.config = config;
  }

  public NodeConfig config() { return config; }
  public Faults faults() { return faults; }
  public void bindAll() { throw new UnsupportedOperationException("not yet"); }
  public RingEntry selfEntry() { throw new UnsupportedOperationException("not yet"); }
  public void setRing(List<RingEntry> ring) { throw new UnsupportedOperationException("not yet"); }
  public int clientPort() { return -1; }
  public int peerPort() { return -1; }
  public int adminPort() { return -1; }
  public CompanionStats stats() { return new CompanionStats(0, 0, 0, 0, 0); }
  public void resetStats() {}
  public boolean isRunning() { return false; }
  public void stop() {}
  public void start() {}
  public void cutPeerLinks() {}
  public void restorePeerLinks() {}
  public void backendDown() {}
  public void backendUp() {}
  public void resetAdminState() {}
  public void flushBackend() {}
  @Override public void close() {}
}
