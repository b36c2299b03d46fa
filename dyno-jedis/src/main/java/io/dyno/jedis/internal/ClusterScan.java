package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
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
 * visits one replica per token range (local rack first), with a cursor per node. A range is
 * scanned to its end and never restarted; when its node fails mid-scan the range is scanned again
 * from the start on its replica in the next rack, and keys already returned from that range are
 * skipped. Each batch runs on its range's current node only (retried there by the engine's policy),
 * not on the whole replica list: a move to another node restarts the range, so the scan moves only
 * when that node has failed, never for one slow reply. Keys are also de-duplicated within a range
 * (Redis's SCAN may repeat a key).
 * Memory: the keys of the range being scanned.
 */
public final class ClusterScan implements Iterator<byte[]> {
  private static final Logger log = LoggerFactory.getLogger(ClusterScan.class);

  private final ClientCore core;
  private final CallOptions options;
  private final byte[] pattern; // null: every key
  private final byte[] type; // null: every type
  private final int count;
  private final ArrayDeque<Topology.TokenRange> ranges;
  private final ArrayDeque<byte[]> buffer = new ArrayDeque<>();

  private Topology.TokenRange range; // current
  private int replica; // index in range.replicas()
  private String cursor;
  private Set<ByteBuffer> seenInRange = new HashSet<>();
  private int rangesDone;
  private int failovers;

  public ClusterScan(ClientCore core, CallOptions options, byte[] pattern, int count) {
    this(core, options, pattern, null, count);
  }

  /** {@code type}: only keys of this Redis type (SCAN's TYPE option, e.g. "hash"); null: every type. */
  public ClusterScan(ClientCore core, CallOptions options, byte[] pattern, byte[] type, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("scan count must be >= 1, was " + count);
    }
    this.core = core;
    this.options = options;
    this.pattern = pattern;
    this.type = type;
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
        replica = 0;
        cursor = "0";
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

  /** {@return the token ranges scanned to their end so far} */
  public int rangesDone() {
    return rangesDone;
  }

  /** {@return how many times a range moved to another replica after its node failed} */
  public int failovers() {
    return failovers;
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
    List<Host> replicas = range.replicas();
    Host host = replicas.get(replica);
    CommandArguments args = new CommandArguments(Protocol.Command.SCAN).add(cursor);
    if (pattern != null) {
      args.add(Protocol.Keyword.MATCH).add(pattern);
    }
    args.add(Protocol.Keyword.COUNT).add(count);
    if (type != null) {
      args.add(Protocol.Keyword.TYPE).add(type);
    }
    List<?> reply;
    // Checked here, outside the failover below: a closed client is not a node failure to move past.
    core.ensureOpen("SCAN was not sent");
    try {
      CallSpec scan = core.dyno
          .call("SCAN")
          .on(List.of(host))
          .idempotent(true)
          .options(options)
          .build();
      reply = (List<?>) core.dyno.execute(scan, c -> c.execute(args));
    } catch (RuntimeException e) {
      if (replica + 1 >= replicas.size()) {
        throw core.failures()
            .translate(
                "cluster scan: range (" + range.startExclusive() + ", " + range.endInclusive()
                    + "] failed on every replica, last " + host + ": " + e.getMessage(),
                e);
      }
      replica++;
      failovers++;
      cursor = "0"; // a cursor is only meaningful on its own node: restart the range on the replica
      log.info(
          "cluster scan: {} failed ({}), continuing range on {}",
          host,
          e.toString(),
          replicas.get(replica));
      return;
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
