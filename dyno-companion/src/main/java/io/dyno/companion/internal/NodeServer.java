package io.dyno.companion.internal;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionStats;
import io.dyno.core.ConsistencyLevel;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * One companion node: client (RESP), peer (RESP between nodes) and admin (HTTP) listeners, the
 * datastore, and Dynomite's routing: the owner in the local rack serves the key (forwarded over the
 * peer port when it is another node), writes are replicated to the owner in every other rack, and
 * DC_QUORUM / DC_SAFE_QUORUM wait for a quorum of the local datacenter's racks; DC_EACH_SAFE_QUORUM
 * answers as Dynomite does across datacenters (see {@link EachSafeQuorum}).
 */
public final class NodeServer implements AutoCloseable {
  static final Consumer<RedisMessage> IGNORE = m -> {};
  private static final int FREE_PAIR_ATTEMPTS = 50;

  private final NodeConfig config;
  private final EventLoopGroup group;
  private final Faults faults = new Faults();
  private final KeyHash hasher;
  private final Storage storage;
  private final ConcurrentHashMap<EventLoop, LoopState> loops = new ConcurrentHashMap<>();
  private final ChannelGroup clientChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ChannelGroup peerChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  final LongAdder requests = new LongAdder();
  final LongAdder clientReads = new LongAdder();
  final LongAdder clientWrites = new LongAdder();
  final LongAdder forwarded = new LongAdder();
  final LongAdder replicatedOut = new LongAdder();
  final LongAdder peerRequests = new LongAdder();
  final AtomicInteger clientConnections = new AtomicInteger();
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
  private volatile long remoteDatacenterDelayNanos;
  private Channel clientServer;
  private Channel peerServer;
  private Channel adminServer;
  private int clientPort;
  private int peerPort;
  private int adminPort;

  public NodeServer(NodeConfig config, EventLoopGroup group) {
    this.config = config;
    this.group = group;
    this.hasher = KeyHash.forHashtag(config.hashtag());
    this.storage = config.backend() == Backend.REDIS
        ? new RedisStorage(this, config.redisPort())
        : new MemoryStorage();
    if (config.backend() == Backend.REDIS && config.redisPort() <= 0) {
      throw new IllegalArgumentException("node " + config.rack() + "/" + config.token()
          + ": backend redis needs a redis port, was " + config.redisPort());
    }
    this.clientPort = config.clientPort();
    this.peerPort = config.peerPort();
    this.adminPort = config.adminPort();
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
    remoteDatacenterDelayNanos = d.toNanos();
  }

  /** Binds the client, peer and admin listeners (port 0 = a free port, remembered for restarts). */
  public synchronized void bindAll() {
    adminServer = bind(
        adminPort,
        new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            // No response encoder: AdminHandler writes Dynomite's reply bytes itself.
            ch.pipeline()
                .addLast(
                    new HttpRequestDecoder(),
                    new HttpObjectAggregator(1 << 16),
                    new AdminHandler(NodeServer.this));
          }
        },
        "admin");
    adminPort = ((InetSocketAddress) adminServer.localAddress()).getPort();
    bindRespListeners();
    self = new RingEntry(
        config.datacenter(), config.rack(), config.token(), config.host(), peerPort, clientPort);
    if (ring == null) {
      ring = new Ring(self, List.of(self));
    }
  }

  private void bindRespListeners() {
    if (clientPort == 0 && peerPort == 0) {
      bindFreePortPair();
    } else {
      clientServer = bind(clientPort, respInitializer(false), "client");
      clientPort = ((InetSocketAddress) clientServer.localAddress()).getPort();
      peerServer = bind(peerPort, respInitializer(true), "peer");
      peerPort = ((InetSocketAddress) peerServer.localAddress()).getPort();
    }
    running = true;
  }

  /**
   * Free ports that keep Dynomite's convention, peer port = client port - 1: Dynomite's
   * {@code /cluster_describe} gives only the peer port, and clients take the client port as peer
   * port + 1, so a free-port cluster is then usable through it like a real one.
   */
  private void bindFreePortPair() {
    for (int attempt = 1; ; attempt++) {
      Channel client = bind(0, respInitializer(false), "client");
      int port = ((InetSocketAddress) client.localAddress()).getPort();
      try {
        peerServer = bind(port - 1, respInitializer(true), "peer");
      } catch (IllegalStateException taken) {
        client.close().syncUninterruptibly();
        if (attempt == FREE_PAIR_ATTEMPTS) {
          throw new IllegalStateException(
              "node " + config.datacenter() + "/" + config.rack()
                  + " token " + config.token() + ": no free client port whose port - 1 is free for"
                  + " the peer port in " + FREE_PAIR_ATTEMPTS + " tries",
              taken);
        }
        continue;
      }
      clientServer = client;
      clientPort = port;
      peerPort = port - 1;
      return;
    }
  }

  private ChannelInitializer<SocketChannel> respInitializer(boolean peer) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        (peer ? peerChannels : clientChannels).add(ch);
        ch.pipeline()
            .addLast(
                new RedisDecoder(!peer),
                new RedisBulkStringAggregator(),
                new ArrayLengthLimit(),
                new RedisArrayAggregator(),
                new Connection(NodeServer.this, peer));
      }
    };
  }

  private Channel bind(int port, ChannelInitializer<SocketChannel> init, String what) {
    try {
      return new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .option(ChannelOption.SO_REUSEADDR, true)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(init)
          .bind(config.host(), port)
          .sync()
          .channel();
    } catch (Exception e) {
      throw new IllegalStateException(
          "node " + config.datacenter() + "/" + config.rack() + " token " + config.token()
              + ": cannot bind " + what + " port " + config.host() + ":" + port + ": "
              + e.getMessage(),
          e);
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
    return clientPort;
  }

  public int peerPort() {
    return peerPort;
  }

  public int adminPort() {
    return adminPort;
  }

  public CompanionStats stats() {
    return new CompanionStats(
        requests.sum(),
        forwarded.sum(),
        replicatedOut.sum(),
        peerRequests.sum(),
        clientConnections.get());
  }

  public void resetStats() {
    requests.reset();
    clientReads.reset();
    clientWrites.reset();
    forwarded.reset();
    replicatedOut.reset();
    peerRequests.reset();
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
    clientServer.close().syncUninterruptibly();
    peerServer.close().syncUninterruptibly();
    clientChannels.close().awaitUninterruptibly();
    peerChannels.close().awaitUninterruptibly();
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
    bindRespListeners();
  }

  public void cutPeerLinks() {
    peersCut = true;
    forEachLoop(LoopState::disconnectPeers);
    peerChannels.close().awaitUninterruptibly();
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

  // ---- the request path (all on the calling connection's event loop) ----

  /**
   * Runs a command on this node's own datastore, for a client or a peer. As in Dynomite, the node's
   * state is checked here: STANDBY refuses everything, WRITES_ONLY and RESUMING refuse reads, and
   * WRITES_ONLY queues writes without sending them, so they fail when the datastore timeout expires.
   */
  void executeLocal(byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    String st = state;
    if (!st.equals("NORMAL")) {
      boolean write = Commands.lookup(Resp.upper(args[0])).write();
      if (st.equals("STANDBY") || !write) {
        cb.accept(Resp.err(Resp.STATE_DISALLOWS));
        return;
      }
      if (st.equals("WRITES_ONLY")) {
        ls.loop.schedule(
            () -> cb.accept(Resp.err(Resp.STORAGE_REFUSED)),
            config.peerTimeout().toNanos(),
            TimeUnit.NANOSECONDS);
        return;
      }
    }
    if (backendDown) {
      cb.accept(Resp.err(Resp.STORAGE_REFUSED));
    } else {
      storage.execute(args, ls, cb);
    }
  }

  /** Sends a command to one node: this one (datastore) or a peer over the peer port. */
  void sendTo(RingEntry e, byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    if (ring.isSelf(e)) {
      executeLocal(args, ls, cb);
    } else if (peersCut) {
      cb.accept(Resp.err(Resp.PEER_NOT_CONNECTED));
    } else {
      ls.peer(e).send(args, cb);
    }
  }

  /** The local rack's owner of a key. */
  RingEntry localOwner(byte[] key) {
    return ring.localRack.owner(hasher.hash(key));
  }

  /** Routes a single-key command at the given consistency (Dynomite's coordinator role). */
  void route(
      byte[] key,
      boolean write,
      byte[][] args,
      ConsistencyLevel level,
      LoopState ls,
      Consumer<RedisMessage> cb) {
    Ring r = ring;
    long hash = hasher.hash(key);
    RingEntry owner = r.localRack.owner(hash);
    EachSafeQuorum each =
        level == ConsistencyLevel.DC_EACH_SAFE_QUORUM && r.remoteDcHasRacksToCompare()
            ? new EachSafeQuorum(r.remoteDcRacks, cb)
            : null;
    if (level == ConsistencyLevel.DC_ONE) {
      if (!r.isSelf(owner)) {
        forwarded.increment();
      }
      sendTo(owner, args, ls, cb);
      if (write) {
        for (int i = 1; i < r.localDcRacks.size(); i++) {
          replicate(r.localDcRacks.get(i).owner(hash), args, ls, IGNORE);
        }
      }
    } else {
      Quorum q = new Quorum(
          r.localDcRacks.size(),
          level != ConsistencyLevel.DC_QUORUM,
          each != null ? each.local() : cb);
      if (!r.isSelf(owner)) {
        forwarded.increment();
      }
      sendTo(owner, args, ls, q);
      for (int i = 1; i < r.localDcRacks.size(); i++) {
        replicate(r.localDcRacks.get(i).owner(hash), args, ls, q);
      }
    }
    if (write || level == ConsistencyLevel.DC_EACH_SAFE_QUORUM) {
      long delay = remoteDatacenterDelayNanos;
      for (Ring.Rack remote : r.remoteDcRacks) {
        RingEntry e = remote.owner(hash);
        Consumer<RedisMessage> reply = each != null ? each.remote(remote.datacenter()) : IGNORE;
        if (delay > 0) {
          ls.loop.schedule(() -> replicate(e, args, ls, reply), delay, TimeUnit.NANOSECONDS);
        } else {
          replicate(e, args, ls, reply);
        }
      }
    }
  }

  private void replicate(RingEntry e, byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    replicatedOut.increment();
    sendTo(e, args, ls, cb);
  }

  /** Sends to every node; answers with this node's reply once all have answered. */
  void broadcast(byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    List<RingEntry> all = ring.all;
    int[] left = {all.size()};
    RedisMessage[] local = new RedisMessage[1];
    for (RingEntry e : all) {
      boolean isSelf = ring.isSelf(e);
      sendTo(e, args, ls, m -> {
        if (isSelf) {
          local[0] = m;
        }
        if (--left[0] == 0) {
          cb.accept(local[0]);
        }
      });
    }
  }

  /** Whether every key of {@code keys} has the same local-rack owner. */
  boolean sameOwner(List<byte[]> keys) {
    RingEntry first = null;
    for (byte[] k : keys) {
      RingEntry o = localOwner(k);
      if (first == null) {
        first = o;
      } else if (!first.peerId().equals(o.peerId())) {
        return false;
      }
    }
    return true;
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
    if (adminServer != null) {
      adminServer.close().syncUninterruptibly();
    }
  }

  @Override
  public String toString() {
    return "node " + config.datacenter() + "/" + config.rack() + " token " + config.token()
        + " client " + clientPort;
  }
}
