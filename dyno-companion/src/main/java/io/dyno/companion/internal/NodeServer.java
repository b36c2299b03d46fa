package io.dyno.companion.internal;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionStats;
import io.dyno.core.ConsistencyLevel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One companion node: its listeners ({@link NodeListeners}), its datastore, its place in the ring,
 * the state and consistency set through its admin port, and the faults tests inject. Requests are
 * routed as Dynomite routes them by its {@link Coordinator}.
 */
public final class NodeServer implements AutoCloseable {
  private final NodeConfig config;
  private final Faults faults = new Faults();
  private final KeyHash hasher;
  private final Storage storage;
  private final ConcurrentHashMap<EventLoop, LoopState> loops = new ConcurrentHashMap<>();
  private final NodeCounters counters = new NodeCounters();
  private final Coordinator coordinator;
  private final NodeListeners listeners;
  private volatile long startMillis = System.currentTimeMillis();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Ring ring;
  private volatile RingEntry self;
  private volatile boolean running;
  private volatile boolean peersCut;
  private volatile boolean backendDown;
  private volatile ConsistencyLevel readLevel = ConsistencyLevel.DC_ONE;
  private volatile ConsistencyLevel writeLevel = ConsistencyLevel.DC_ONE;
  private volatile String state = "NORMAL";

  public NodeServer(NodeConfig config, EventLoopGroup group) {
    this.config = config;
    this.hasher = KeyHash.forHashtag(config.hashtag());
    this.storage = config.backend() == Backend.REDIS
        ? new RedisStorage(this, config.redisPort())
        : new MemoryStorage();
    if (config.backend() == Backend.REDIS && config.redisPort() <= 0) {
      throw new IllegalArgumentException("node " + config.rack() + "/" + config.token()
          + ": backend redis needs a redis port, was " + config.redisPort());
    }
    this.coordinator = new Coordinator(this, counters);
    this.listeners = new NodeListeners(this, group);
  }

  public NodeConfig config() {
    return config;
  }

  public Faults faults() {
    return faults;
  }

  KeyHash hasher() {
    return hasher;
  }

  Ring ring() {
    return ring;
  }

  Storage storage() {
    return storage;
  }

  NodeCounters counters() {
    return counters;
  }

  Coordinator coordinator() {
    return coordinator;
  }

  boolean peersCut() {
    return peersCut;
  }

  String state() {
    return state;
  }

  ConsistencyLevel readLevel() {
    return readLevel;
  }

  ConsistencyLevel writeLevel() {
    return writeLevel;
  }

  long uptimeSeconds() {
    return (System.currentTimeMillis() - startMillis) / 1000;
  }

  boolean backendIsDown() {
    return backendDown;
  }

  /** How much later replication to another datacenter's racks is sent (the link between regions). */
  public void remoteDatacenterDelay(Duration d) {
    coordinator.remoteDatacenterDelay(d);
  }

  /** Binds the client, peer and admin listeners (port 0 = a free port, remembered for restarts). */
  public synchronized void bindAll() {
    listeners.bindAdmin();
    listeners.bindResp();
    running = true;
    self = new RingEntry(
        config.datacenter(),
        config.rack(),
        config.token(),
        config.host(),
        listeners.peerPort(),
        listeners.clientPort());
    if (ring == null) {
      ring = new Ring(self, List.of(self));
    }
  }

  public RingEntry selfEntry() {
    if (self == null) {
      throw new IllegalStateException("node not bound yet");
    }
    return self;
  }

  /** Sets every node of the cluster (this one included or not). */
  public void setRing(List<RingEntry> entries) {
    ring = new Ring(selfEntry(), entries);
  }

  public int clientPort() {
    return listeners.clientPort();
  }

  public int peerPort() {
    return listeners.peerPort();
  }

  public int adminPort() {
    return listeners.adminPort();
  }

  public CompanionStats stats() {
    return counters.snapshot();
  }

  public void resetStats() {
    counters.reset();
  }

  public boolean isRunning() {
    return running;
  }

  /** Closes the client and peer listeners and every connection; the admin port stays up. */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    running = false;
    listeners.closeResp();
    forEachLoop(LoopState::disconnectPeers);
    forEachLoop(LoopState::disconnectBackend);
  }

  /**
   * Listens again on the same ports: a restart, so, as a restarted Dynomite, the node is NORMAL
   * again and its {@code /info} uptime starts from 0 (its data is what its backend still holds).
   */
  public synchronized void start() {
    if (running || closed.get()) {
      return;
    }
    state = "NORMAL";
    startMillis = System.currentTimeMillis();
    listeners.bindResp();
    running = true;
  }

  public void cutPeerLinks() {
    peersCut = true;
    forEachLoop(LoopState::disconnectPeers);
    listeners.closePeerConnections();
  }

  public void restorePeerLinks() {
    peersCut = false;
  }

  public void backendDown() {
    backendDown = true;
    storage.disconnect();
  }

  public void backendUp() {
    backendDown = false;
  }

  /** Back to DC_ONE / DC_ONE and state NORMAL. */
  public void resetAdminState() {
    readLevel = ConsistencyLevel.DC_ONE;
    writeLevel = ConsistencyLevel.DC_ONE;
    state = "NORMAL";
  }

  void setConsistency(boolean read, ConsistencyLevel level) {
    if (read) {
      readLevel = level;
    } else {
      writeLevel = level;
    }
  }

  void setState(String s) {
    state = s.toUpperCase(Locale.ROOT);
  }

  public void flushBackend() {
    storage.flushAll();
  }

  void forEachLoop(Consumer<LoopState> action) {
    loops.values().forEach(action);
  }

  LoopState loopState(EventLoop loop) {
    return loops.computeIfAbsent(loop, l -> new LoopState(l, this));
  }

  /** All ring entries, for cluster_describe. */
  List<RingEntry> ringEntries() {
    return new ArrayList<>(ring.all);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stop();
    listeners.closeAdmin();
  }

  @Override
  public String toString() {
    return "node " + config.datacenter() + "/" + config.rack() + " token " + config.token()
        + " client " + clientPort();
  }
}
