package io.dyno.jedis.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * Jedis's {@link ScanIteration} over a whole cluster, fed by a {@link ClusterScan}. Jedis's
 * iteration runs SCAN itself on each connection its provider lists, and its {@code nextBatch()} is
 * final; so the provider given to it here lists one stand-in connection, and each "SCAN" Jedis
 * sends on it is answered with the next batch of the cluster scan, as a SCAN reply: its cursor is
 * "0" once the cluster scan is done, which ends Jedis's iteration. The arguments Jedis builds are
 * ignored (the cluster scan has its own pattern, type and count); nothing ever opens a socket.
 */
public final class ClusterScanIteration {
  private ClusterScanIteration() {}

  /**
   * An iteration whose batches hold up to {@code batchCount} keys each, every key of {@code scan}
   * once; {@code match} only fills Jedis's own (unsent) arguments, so null is allowed.
   */
  public static ScanIteration of(ClusterScan scan, int batchCount, String match) {
    ConnectionProvider provider = new OneConnection(new BatchesOf(scan, batchCount));
    return new ScanIteration(provider, batchCount, match == null ? "*" : match);
  }

  /** Answers each SCAN with the next batch of the cluster scan. */
  private static final class BatchesOf extends Connection {
    private static final byte[] MORE = "1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "0".getBytes(StandardCharsets.US_ASCII);

    private final ClusterScan scan;
    private final int batchCount;

    BatchesOf(ClusterScan scan, int batchCount) {
      super(noSocket());
      this.scan = scan;
      this.batchCount = batchCount;
    }

    private static JedisSocketFactory noSocket() {
      return () -> {
        throw new IllegalStateException("a cluster scan's stand-in connection opens no socket");
      };
    }

    @Override
    public Object executeCommand(CommandArguments ignored) {
      List<byte[]> keys = new ArrayList<>();
      while (keys.size() < batchCount && scan.hasNext()) {
        keys.add(scan.next());
      }
      // hasNext() fetches ahead when the batch ends a buffer: the scan is done only when it says
      // so.
      return List.of(scan.hasNext() ? MORE : DONE, keys);
    }
  }

  /** The provider Jedis's iteration asks for its connections: just the stand-in. */
  private record OneConnection(Connection connection) implements ConnectionProvider {
    @Override
    public Connection getConnection() {
      return connection;
    }

    @Override
    public Connection getConnection(CommandArguments args) {
      return connection;
    }

    @Override
    public Map<?, ?> getConnectionMap() {
      return Map.of("cluster", connection);
    }

    @Override
    public void close() {
      // nothing is held
    }
  }
}
