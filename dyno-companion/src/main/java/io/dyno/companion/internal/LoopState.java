package io.dyno.companion.internal;

import io.netty.channel.EventLoop;
import java.util.HashMap;
import java.util.Map;

/** What one node keeps per event loop: its links to peers and to its redis-server. Loop-confined. */
final class LoopState {
  final EventLoop loop;
  private final NodeServer node;
  private final Map<String, RespLink> peers = new HashMap<>();
  private RespLink backend;

  LoopState(EventLoop loop, NodeServer node) {
    this.loop = loop;
    this.node = node;
  }

  RespLink peer(RingEntry e) {
    RespLink l = peers.get(e.peerId());
    if (l == null) {
      long timeout = node.config().peerTimeout().toNanos();
      l = new RespLink(
          loop, e.host(), e.peerPort(), Resp.PEER_NOT_CONNECTED, Resp.PEER_REFUSED, timeout);
      peers.put(e.peerId(), l);
    }
    return l;
  }

  RespLink backend() {
    if (backend == null) {
      backend = new RespLink(
          loop,
          "127.0.0.1",
          node.config().redisPort(),
          Resp.STORAGE_REFUSED,
          Resp.STORAGE_REFUSED,
          node.config().peerTimeout().toNanos());
    }
    return backend;
  }

  /** Drops every peer link (any thread). */
  void disconnectPeers() {
    loop.execute(() -> peers.values().forEach(RespLink::disconnect));
  }

  void disconnectBackend() {
    loop.execute(() -> {
      if (backend != null) {
        backend.disconnect();
      }
    });
  }
}
