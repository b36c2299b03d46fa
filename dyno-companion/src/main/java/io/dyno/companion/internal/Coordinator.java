package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.netty.handler.codec.redis.RedisMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Dynomite's coordinator role for one node: the owner in the local rack serves the key (forwarded
 * over the peer port when it is another node), writes are replicated to the owner in every other
 * rack, and DC_QUORUM / DC_SAFE_QUORUM wait for a quorum of the local datacenter's racks;
 * DC_EACH_SAFE_QUORUM answers as Dynomite does across datacenters (see {@link EachSafeQuorum}). Everything
 * runs on the calling connection's event loop.
 */
final class Coordinator {
  private static final Consumer<RedisMessage> IGNORE = m -> {};

  private final NodeServer node;
  private final NodeCounters counters;
  private volatile long remoteDatacenterDelayNanos;

  Coordinator(NodeServer node, NodeCounters counters) {
    this.node = node;
    this.counters = counters;
  }

  /** How much later replication to another datacenter's racks is sent (the link between regions). */
  void remoteDatacenterDelay(Duration d) {
    remoteDatacenterDelayNanos = d.toNanos();
  }

  /**
   * Runs a command on this node's own datastore, for a client or a peer. As in Dynomite, the node's
   * state is checked here: STANDBY refuses everything, WRITES_ONLY and RESUMING refuse reads, and
   * WRITES_ONLY queues writes without sending them, so they fail when the datastore timeout expires.
   */
  void executeLocal(byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    String st = node.state();
    if (!st.equals("NORMAL")) {
      boolean write = Commands.lookup(Resp.upper(args[0])).write();
      if (st.equals("STANDBY") || !write) {
        cb.accept(Resp.err(Resp.STATE_DISALLOWS));
        return;
      }
      if (st.equals("WRITES_ONLY")) {
        ls.loop.schedule(
            () -> cb.accept(Resp.err(Resp.STORAGE_REFUSED)),
            node.config().peerTimeout().toNanos(),
            TimeUnit.NANOSECONDS);
        return;
      }
    }
    if (node.backendIsDown()) {
      cb.accept(Resp.err(Resp.STORAGE_REFUSED));
    } else {
      node.storage().execute(args, ls, cb);
    }
  }

  /** Sends a command to one node: this one (datastore) or a peer over the peer port. */
  private void sendTo(RingEntry e, byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    if (node.ring().isSelf(e)) {
      executeLocal(args, ls, cb);
    } else if (node.peersCut()) {
      cb.accept(Resp.err(Resp.PEER_NOT_CONNECTED));
    } else {
      ls.peer(e).send(args, cb);
    }
  }

  /** The local rack's owner of a key. */
  RingEntry localOwner(byte[] key) {
    return node.ring().localRack.owner(node.hasher().hash(key));
  }

  /** Routes a single-key command at the given consistency (Dynomite's coordinator role). */
  void route(
      byte[] key,
      boolean write,
      byte[][] args,
      ConsistencyLevel level,
      LoopState ls,
      Consumer<RedisMessage> cb) {
    Ring r = node.ring();
    long hash = node.hasher().hash(key);
    RingEntry owner = r.localRack.owner(hash);
    EachSafeQuorum each =
        level == ConsistencyLevel.DC_EACH_SAFE_QUORUM && r.remoteDcHasRacksToCompare()
            ? new EachSafeQuorum(r.remoteDcRacks, cb)
            : null;
    if (level == ConsistencyLevel.DC_ONE) {
      if (!r.isSelf(owner)) {
        counters.forwarded.increment();
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
        counters.forwarded.increment();
      }
      sendTo(owner, args, ls, q.from(0));
      for (int i = 1; i < r.localDcRacks.size(); i++) {
        replicate(r.localDcRacks.get(i).owner(hash), args, ls, q.from(i));
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
    counters.replicatedOut.increment();
    sendTo(e, args, ls, cb);
  }

  /** Sends to every node; answers with this node's reply once all have answered. */
  void broadcast(byte[][] args, LoopState ls, Consumer<RedisMessage> cb) {
    Ring ring = node.ring();
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
}
