package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.ClusterScanIterator;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

/**
 * A cluster-wide SCAN as an iterator. Every key lives on exactly one node per rack, so the scan
 * visits one replica per token range (local rack first), with a cursor per node. Each batch is one
 * call on the range's replicas: the executor chooses the node and fails over as for any command.
 * A cursor only means something on its own node, so when a batch lands on another node than the
 * last one the range restarts there from cursor 0, and keys already returned from that range are
 * skipped. Keys are also de-duplicated within a range (Redis's SCAN may repeat a key).
 * Memory: the keys of the range being scanned.
 */
public final class ClusterScan implements ClusterScanIterator {
  private static final Logger log = LoggerFactory.getLogger(ClusterScan.class);

  private final ClientCore core;
  private final CallOptions options;
  private final byte[] pattern; // null: every key
  private final int count;
  private final ArrayDeque<Topology.TokenRange> ranges;
  private final ArrayDeque<byte[]> buffer = new ArrayDeque<>();

  private Topology.TokenRange range; // current
  private String cursor;
  private Host cursorHost; // the node the cursor belongs to
  private Set<ByteBuffer> seenInRange = new HashSet<>();
  private int rangesDone;
  private int failovers;

  public ClusterScan(ClientCore core, CallOptions options, byte[] pattern, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("scan count must be >= 1, was " + count);
    }
    this.core = core;
    this.options = options;
    this.pattern = pattern;
    this.count = count;
    this.ranges = new ArrayDeque<>(core.topology().tokenRanges());
  }

  @Override
  public boolean hasNext() {
    while (buffer.isEmpty()) {
      if (range == null) {
        range = ranges.poll();
        if (range == null) {
          return false;
        }
        cursor = "0";
        cursorHost = null;
        seenInRange = new HashSet<>();
      }
      fetch();
    }
    return true;
  }

  @Override
  public byte[] next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return buffer.poll();
  }

  @Override
  public int rangesDone() {
    return rangesDone;
  }

  @Override
  public int failovers() {
    return failovers;
  }

  /** The next SCAN for a batch on {@code host}: from the cursor when it is that node's, else from the start. */
  private CommandArguments scanFrom(Host host) {
    if (!host.equals(cursorHost)) {
      if (cursorHost != null) {
        failovers++;
        log.info("cluster scan: range ({}, {}] continues on {} from the start (was on {})", range.startExclusive(),
            range.endInclusive(), host, cursorHost);
      }
      cursorHost = host;
      cursor = "0";
    }
    CommandArguments args = new CommandArguments(Protocol.Command.SCAN).add(cursor);
    if (pattern != null) {
      args.add(Protocol.Keyword.MATCH).add(pattern);
    }
    return args.add(Protocol.Keyword.COUNT).add(count);
  }

  private boolean inRange(long h) {
    long start = range.startExclusive();
    long end = range.endInclusive();
    if (start < end) {
      return h > start && h <= end;
    }
    return start == end || h > start || h <= end; // wraps around the top of the ring
  }

  private void fetch() {
    List<?> reply;
    try {
      reply = (List<?>) core.dyno.executeOn("SCAN", range.replicas(), true, options, c -> c.execute(scanFrom(c.host())));
    } catch (RuntimeException e) {
      throw new DynoException("cluster scan: range (" + range.startExclusive() + ", " + range.endInclusive()
          + "] failed on every replica: " + e.getMessage(), e);
    }
    cursor = SafeEncoder.encode((byte[]) reply.get(0));
    for (Object k : (List<?>) reply.get(1)) {
      byte[] key = (byte[]) k;
      if (!inRange(core.topology().hasher().hash(key))) {
        continue; // another range's key (racks with different token sets): returned by that range
      }
      if (seenInRange.add(ByteBuffer.wrap(key))) {
        buffer.add(key);
      }
    }
    if (cursor.equals("0")) {
      range = null; // finished: never restarted
      rangesDone++;
    }
  }
}
