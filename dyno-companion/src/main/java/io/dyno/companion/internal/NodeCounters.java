package io.dyno.companion.internal;

import io.dyno.companion.CompanionStats;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** One node's request and connection counters: what {@code /info} and {@link CompanionStats} show. */
final class NodeCounters {
  final LongAdder requests = new LongAdder();
  final LongAdder clientReads = new LongAdder();
  final LongAdder clientWrites = new LongAdder();
  final LongAdder forwarded = new LongAdder();
  final LongAdder replicatedOut = new LongAdder();
  final LongAdder peerRequests = new LongAdder();
  final AtomicInteger clientConnections = new AtomicInteger();

  CompanionStats snapshot() {
    return new CompanionStats(
        requests.sum(),
        forwarded.sum(),
        replicatedOut.sum(),
        peerRequests.sum(),
        clientConnections.get());
  }

  /** Zeroes the request counters; open connections stay counted. */
  void reset() {
    requests.reset();
    clientReads.reset();
    clientWrites.reset();
    forwarded.reset();
    replicatedOut.reset();
    peerRequests.reset();
  }
}
