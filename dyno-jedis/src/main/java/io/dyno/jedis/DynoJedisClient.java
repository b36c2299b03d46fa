package io.dyno.jedis;

import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.internal.KnownCommands;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.internal.ClientCore;
import io.dyno.jedis.internal.ClusterScan;
import io.dyno.jedis.internal.ClusterScanIteration;
import io.dyno.jedis.internal.DynoCommandExecutor;
import io.dyno.jedis.internal.NullRefusingCommandObjects;
import io.dyno.jedis.internal.PipelineBatch;
import io.dyno.jedis.internal.RefusingConnectionProvider;
import io.dyno.jedis.internal.ShadowWriter;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.search.FTSearchParams;
import redis.clients.jedis.search.FtSearchIteration;
import redis.clients.jedis.search.Query;
import redis.clients.jedis.search.aggr.AggregationBuilder;
import redis.clients.jedis.search.aggr.FtAggregateIteration;

/**
 * A Jedis client for a Dynomite cluster: every command of {@link UnifiedJedis} (string and binary)
 * is routed by its keys to the owning node (local rack first), retried and failed over by
 * dyno-core, with the view's consistency and deadline.
 *
 * <ul>
 *   <li>Multi-key MGET, MSET, DEL and EXISTS are split per owner node and merged in order. UNLINK
 *       and TOUCH are refused through Dynomite (it closes the connection on them; use DEL) and
 *       split like DEL in datastore mode.
 *   <li>Commands whose keys must share a node (EVAL, SINTER, SMOVE, RPOPLPUSH, ...) throw
 *       {@link CrossNodeKeysException} otherwise: co-locate keys with a hash tag.
 *   <li>Commands Dynomite cannot serve throw {@link UnsupportedCommandException} before any I/O.
 *   <li>{@link #keys(String)} runs KEYS on one replica of every token range and merges: it reads
 *       every key of the cluster, so it is as costly as KEYS on every node. Prefer {@link #scanAll}
 *       or {@link #scanIteration(int, String)}, which walk the cluster in batches.
 *   <li>SCRIPT LOAD / EXISTS / FLUSH go to every node, so a failover replica has the script too.
 *   <li>{@link #pipelined()} accepts any keys; MULTI/EXEC is refused.
 *   <li>Every refusal ({@link UnsupportedCommandException}, {@link CrossNodeKeysException},
 *       {@link ClientClosedException}) is a {@code JedisException}, as a Jedis user expects.
 * </ul>
 *
 * Thread-safe; share one instance. {@link #close()} is idempotent; closing a view made by
 * {@link #withOptions} does nothing. Once closed, every call (of any view, pipeline, scan or the
 * asynchronous API) throws {@link ClientClosedException} naming the client, before anything is sent.
 */
public class DynoJedisClient extends UnifiedJedis {
  private final DynoCommandExecutor dynoExecutor;
  private final ClientCore core;
  private final boolean view;

  DynoJedisClient(DynoCommandExecutor executor, boolean view) {
    // Dyno routes every command itself; Jedis methods that want a connection of their own are
    // refused by name.
    super(
        executor,
        new RefusingConnectionProvider(ApiExceptions.INSTANCE),
        RedisProtocol.RESP2,
        null);
    this.dynoExecutor = executor;
    this.core = executor.core();
    this.view = view;
  }

  /** {@return a builder of a client; host and token suppliers (or a topology) are required} */
  public static DynoJedisClientBuilder builder() {
    return new DynoJedisClientBuilder();
  }

  /** Every command's arguments are built here: a null key or value is refused, naming the command. */
  @Override
  protected CommandObjects newCommandObjects(RedisProtocol protocol) {
    return new NullRefusingCommandObjects(protocol);
  }

  /**
   * {@return a view of this client whose calls run with {@code options}} It shares connections and
   * topology with this client; making one is cheap, and closing it does nothing.
   *
   * @param options consistency, deadline, hedging, retrying non-idempotent commands; a field left
   *     null takes the client's default
   */
  public DynoJedisClient withOptions(CallOptions options) {
    Objects.requireNonNull(options, "options");
    return new DynoJedisClient(new DynoCommandExecutor(core, options, false), true);
  }

  /**
   * {@return the asynchronous API over this client's connections and options} Every command as a
   * {@link CompletableFuture}, with the same routing, failover, retries, deadlines, consistency,
   * hedging and metrics. Needs {@link Transport#MULTIPLEXED} to keep many requests in flight; on
   * {@link Transport#POOLED} each future is complete when the call returns.
   */
  public DynoJedisAsync async() {
    return new DynoJedisAsync(dynoExecutor, commandObjects);
  }

  /** {@return the call options this view's calls run with} */
  public CallOptions callOptions() {
    return dynoExecutor.options();
  }

  /** {@return the topology in force now: nodes, racks, token ranges; a new snapshot after each change} */
  public Topology topology() {
    return core.topology();
  }

  /**
   * {@return whether {@code host} takes traffic now} Its host source reports it UP and it is not out
   * of rotation after repeated connection failures or timeouts (a background probe brings it back).
   * Read-only; for health checks, with the nodes of {@link #topology()}.
   *
   * @param host a node of the topology
   */
  public boolean isNodeUp(Host host) {
    return core.dyno().isNodeUp(Objects.requireNonNull(host, "host"));
  }

  /** A pipeline over the whole cluster (see {@link DynoPipeline}); {@link ClientClosedException} once closed. */
  @Override
  public DynoPipeline pipelined() {
    core.ensureOpen("pipelined() opens no pipeline");
    return new DynoPipeline(commandObjects, new PipelineBatch(core, dynoExecutor.options()));
  }

  /** Refused: Dynomite does not support MULTI/EXEC. */
  @Override
  public AbstractTransaction multi() {
    throw refused("MULTI");
  }

  /** Refused: Dynomite does not support MULTI/EXEC. */
  @Override
  public AbstractTransaction transaction(boolean doMulti) {
    return multi();
  }

  /**
   * {@return every key of the cluster matching {@code pattern}, each exactly once} Lazy: nodes are
   * scanned as the stream is consumed (see {@link #scanAllBinary}); keys are decoded as UTF-8.
   *
   * @param pattern a glob pattern (SCAN's MATCH), e.g. {@code "user:*"}; null: every key
   */
  public Stream<String> scanAll(String pattern) {
    return scanAllBinary(pattern == null ? null : pattern.getBytes(StandardCharsets.UTF_8), 1000)
        .map(b -> new String(b, StandardCharsets.UTF_8));
  }

  /**
   * {@return every key of the cluster matching {@code pattern}, each exactly once, as bytes} One
   * replica per token range (local rack first), a cursor per node, a range whose node fails
   * mid-scan continued on its replica in another rack. Lazy.
   *
   * @param pattern a glob pattern (SCAN's MATCH); null: every key
   * @param count the COUNT hint of each SCAN sent (keys a node looks at per call, not a limit)
   */
  public Stream<byte[]> scanAllBinary(byte[] pattern, int count) {
    Iterator<byte[]> it = scanIterator(pattern, count);
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(it, Spliterator.NONNULL), false);
  }

  /**
   * {@return the iterator behind {@link #scanAllBinary}} Its {@code failovers()} tells how often a
   * range moved to another replica.
   *
   * @param pattern a glob pattern (SCAN's MATCH); null: every key
   * @param count the COUNT hint of each SCAN sent
   */
  public ClusterScanIterator scanIterator(byte[] pattern, int count) {
    core.ensureOpen("SCAN was not sent");
    return new ClusterScanCursor(new ClusterScan(core, dynoExecutor.options(), pattern, count));
  }

  /**
   * Jedis's batch-wise SCAN over the whole cluster: every key once, as {@link #scanAll} (one replica
   * per token range, a range whose node fails continued on a replica), in batches of up to
   * {@code batchCount} keys. Drive it as with Jedis: {@code nextBatch()} until
   * {@code isIterationCompleted()}, or {@code collect(...)}. A batch is empty only when no key
   * matches at all.
   *
   * @param batchCount keys per batch at most, and the COUNT hint of each SCAN sent
   * @param match a glob pattern (MATCH) the keys must match; null: every key
   * @return the iteration; it sends nothing until its first batch is asked for
   */
  @Override
  public ScanIteration scanIteration(int batchCount, String match) {
    return scanIteration(batchCount, match, null);
  }

  /**
   * As {@link #scanIteration(int, String)}, for keys of one Redis type only.
   *
   * @param batchCount keys per batch at most, and the COUNT hint of each SCAN sent
   * @param match a glob pattern (MATCH) the keys must match; null: every key
   * @param type the keys' Redis type (SCAN's TYPE option: "string", "hash", ...); null: every type
   * @return the iteration; it sends nothing until its first batch is asked for
   */
  @Override
  public ScanIteration scanIteration(int batchCount, String match, String type) {
    core.ensureOpen("SCAN was not sent");
    ClusterScan scan =
        new ClusterScan(core, dynoExecutor.options(), utf8(match), utf8(type), batchCount);
    return ClusterScanIteration.of(scan, batchCount, match);
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  // UnifiedJedis runs these on its own connection provider, which a Dyno client does not have;
  // FT.* is not served by Dynomite anyway.
  @Override
  public FtSearchIteration ftSearchIteration(
      int batchSize, String indexName, String query, FTSearchParams params) {
    throw noRediSearch("FT.SEARCH");
  }

  @Override
  public FtSearchIteration ftSearchIteration(int batchSize, String indexName, Query query) {
    throw noRediSearch("FT.SEARCH");
  }

  @Override
  public FtAggregateIteration ftAggregateIteration(String indexName, AggregationBuilder aggr) {
    throw noRediSearch("FT.AGGREGATE");
  }

  @Override
  public void subscribe(JedisPubSub jedisPubSub, String... channels) {
    throw noPubSub("SUBSCRIBE");
  }

  @Override
  public void psubscribe(JedisPubSub jedisPubSub, String... patterns) {
    throw noPubSub("PSUBSCRIBE");
  }

  @Override
  public void subscribe(BinaryJedisPubSub jedisPubSub, byte[]... channels) {
    throw noPubSub("SUBSCRIBE");
  }

  @Override
  public void psubscribe(BinaryJedisPubSub jedisPubSub, byte[]... patterns) {
    throw noPubSub("PSUBSCRIBE");
  }

  private static UnsupportedCommandException noRediSearch(String command) {
    return new UnsupportedCommandException(command, "RediSearch is not supported by Dynomite");
  }

  private static UnsupportedCommandException noPubSub(String command) {
    return refused(command);
  }

  /** The refusal of a command the command table refuses in every mode, with the table's reason. */
  private static UnsupportedCommandException refused(String command) {
    return new UnsupportedCommandException(command, KnownCommands.entry(command).advice());
  }

  /** {@return the shadow (dual-write) counters, or null when no shadow cluster is configured} */
  public ShadowStats shadowStats() {
    ShadowWriter s = core.shadow();
    return s == null
        ? null
        : new ShadowStats(s.offered(), s.sent(), s.dropped(), s.failed(), s.queued());
  }

  /**
   * Counters of the dual write to the shadow cluster, since the client was built.
   *
   * @param offered writes selected for mirroring (by their key's hash)
   * @param sent writes the shadow client ran without an error
   * @param dropped writes dropped because the queue was full
   * @param failed writes the shadow client failed (logged once per 1000)
   * @param queued writes waiting in the queue now
   */
  public record ShadowStats(long offered, long sent, long dropped, long failed, int queued) {}

  /** Closes connections, pools and threads; idempotent. On a view made by {@link #withOptions}: does nothing. */
  @Override
  public void close() {
    if (!view) {
      super.close();
    }
  }
}
