package io.dyno.jedis;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.DriverProperties;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoEngine;
import io.dyno.core.exec.DynoExecutor;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Ticker;
import io.dyno.core.topology.Locality;
import io.dyno.core.topology.TopologyRefresher;
import io.dyno.core.topology.TopologySupplier;
import io.dyno.jedis.internal.ClientCore;
import io.dyno.jedis.internal.ClusterScan;
import io.dyno.jedis.internal.ClusterScanIteration;
import io.dyno.jedis.internal.CommandTable;
import io.dyno.jedis.internal.CompressionSettings;
import io.dyno.jedis.internal.DynoCommandExecutor;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.dyno.jedis.internal.JedisNodeConnection;
import io.dyno.jedis.internal.NullRefusingCommandObjects;
import io.dyno.jedis.internal.PipelineBatch;
import io.dyno.jedis.internal.Planner;
import io.dyno.jedis.internal.RefusingConnectionProvider;
import io.dyno.jedis.internal.ShadowWriter;
import io.dyno.jedis.internal.StartupChecks;
import io.dyno.jedis.internal.TransportSettings;
import io.dyno.jedis.internal.ValueCodec;
import io.dyno.jedis.internal.mux.MuxSettings;
import io.dyno.jedis.internal.mux.MuxTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.CommandObject;
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

  private DynoJedisClient(DynoCommandExecutor executor, boolean view) {
    // Dyno routes every command itself; Jedis methods that want a connection of their own are
    // refused by name.
    super(executor, new RefusingConnectionProvider(), RedisProtocol.RESP2, null);
    this.dynoExecutor = executor;
    this.core = executor.core();
    this.view = view;
  }

  /** {@return a builder of a client; host and token suppliers (or a topology) are required} */
  public static Builder builder() {
    return new Builder();
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
    throw new UnsupportedCommandException(
        "MULTI",
        "transactions (MULTI/EXEC) are not supported by Dynomite;"
            + " use a pipeline, or a Lua script over hash-tagged keys");
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
    return new ClusterScan(core, dynoExecutor.options(), pattern, count);
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
    throw new UnsupportedCommandException("FT.SEARCH", "RediSearch is not supported by Dynomite");
  }

  @Override
  public FtSearchIteration ftSearchIteration(int batchSize, String indexName, Query query) {
    throw new UnsupportedCommandException("FT.SEARCH", "RediSearch is not supported by Dynomite");
  }

  @Override
  public FtAggregateIteration ftAggregateIteration(String indexName, AggregationBuilder aggr) {
    throw new UnsupportedCommandException(
        "FT.AGGREGATE", "RediSearch is not supported by Dynomite");
  }

  @Override
  public void subscribe(JedisPubSub jedisPubSub, String... channels) {
    throw new UnsupportedCommandException(
        "SUBSCRIBE", "publish/subscribe is not supported by Dynomite");
  }

  @Override
  public void psubscribe(JedisPubSub jedisPubSub, String... patterns) {
    throw new UnsupportedCommandException(
        "PSUBSCRIBE", "publish/subscribe is not supported by Dynomite");
  }

  @Override
  public void subscribe(BinaryJedisPubSub jedisPubSub, byte[]... channels) {
    throw new UnsupportedCommandException(
        "SUBSCRIBE", "publish/subscribe is not supported by Dynomite");
  }

  @Override
  public void psubscribe(BinaryJedisPubSub jedisPubSub, byte[]... patterns) {
    throw new UnsupportedCommandException(
        "PSUBSCRIBE", "publish/subscribe is not supported by Dynomite");
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

  /** Builds a {@link DynoJedisClient}; validates eagerly and names the bad setting. */
  public static final class Builder {
    private String applicationName;
    private HostSupplier hostSupplier;
    private TokenMapSupplier tokenMapSupplier;
    private Supplier<Topology> topologySupplier;
    private String localRack;
    private String localDatacenter;
    private boolean allowUnknownLocalRack;
    private Function<String, String> environment = System::getenv;
    private String hashtag;
    private Supplier<DynoConfig> config;
    private Boolean datastoreMode;
    private Registry registry;
    private String datastoreUser;
    private String datastorePassword;
    private int datastoreDatabase;
    private JedisConnectionFactory.Tls tls;
    private Integer compressionThreshold;
    private Set<CompressedFormat> readCompressed;
    private int maxDecompressedSize = ValueCodec.DEFAULT_MAX_DECOMPRESSED_SIZE;
    private UnifiedJedis shadow;
    private double shadowPercent;
    private int shadowQueueCapacity = 10_000;
    private CallOptions defaults = CallOptions.defaults();
    private Duration refreshPeriod = TopologyRefresher.DEFAULT_PERIOD;
    private Transport transport; // these five: null = the property source's value, else the default
    private Integer muxConnectionsPerNode;
    private Integer muxMaxInFlight;
    private Integer muxMaxWritesInFlight;
    private Integer muxMaxBulkBytes;
    private final List<CallListener.Factory> eventListeners = new ArrayList<>(1);

    private Builder() {}

    /**
     * Names the client in metrics, logs and errors (default: the config's application name).
     *
     * @param name the application name, not blank
     * @return this builder
     */
    public Builder applicationName(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("applicationName must not be empty");
      }
      this.applicationName = name;
      return this;
    }

    /**
     * Which nodes exist and whether they are up; re-read every {@link #topologyRefreshPeriod}.
     *
     * @param s the host source (a static list, Eureka, your own)
     * @return this builder
     */
    public Builder hostSupplier(HostSupplier s) {
      this.hostSupplier = Objects.requireNonNull(s, "hostSupplier");
      return this;
    }

    /**
     * Which token each node owns; re-read with the hosts.
     *
     * @param s the token source, e.g. {@code ClusterDescribeTokenMapSupplier} asking the nodes
     * @return this builder
     */
    public Builder tokenMapSupplier(TokenMapSupplier s) {
      this.tokenMapSupplier = Objects.requireNonNull(s, "tokenMapSupplier");
      return this;
    }

    /**
     * Where the current topology comes from (e.g. dyno-core's {@code TopologyRefresher::current});
     * replaces host and token suppliers, hashtag and local rack settings. The caller closes its source.
     *
     * @param s the source of the topology in force, asked on every call
     * @return this builder
     */
    public Builder topology(Supplier<Topology> s) {
      this.topologySupplier = Objects.requireNonNull(s, "topology");
      return this;
    }

    /**
     * The rack this application runs in: its owners are tried first. Unset, {@code LOCAL_RACK} or
     * {@code EC2_AVAILABILITY_ZONE} is used, and one the cluster lacks only warns. Set here, a rack
     * the cluster lacks fails {@link #build()} naming the cluster's racks (checked against the first
     * topology, so not when the client starts without nodes); see {@link #allowUnknownLocalRack()}.
     *
     * @param rack the rack (availability zone) name, as the cluster names it; null: from the environment
     * @return this builder
     */
    public Builder localRack(String rack) {
      this.localRack = rack;
      return this;
    }

    /**
     * Lets {@link #build()} succeed when {@link #localRack} names a rack the cluster does not have
     * (or one in several datacenters, with no {@link #localDatacenter}): requests then spread evenly
     * over every rack, with one warning. For deployments that mean it, such as a fleet configured
     * with zone names where the cluster has no nodes. Without it, such a rack is taken for a typo:
     * it would send most requests across zones with nothing but a warning to show for it.
     *
     * @return this builder
     */
    public Builder allowUnknownLocalRack() {
      this.allowUnknownLocalRack = true;
      return this;
    }

    /**
     * The datacenter (region) this application runs in: its racks are tried after the local rack,
     * before other datacenters. Unset, {@code LOCAL_DATACENTER} or {@code EC2_REGION} is used, else
     * the local rack's datacenter; needed when the local rack's name exists in several datacenters.
     *
     * @param dc the datacenter name, as the cluster names it; null: from the environment or the rack
     * @return this builder
     */
    public Builder localDatacenter(String dc) {
      this.localDatacenter = dc;
      return this;
    }

    /** Where {@code LOCAL_RACK} and the like are read (the process environment); tests give their own. */
    Builder environment(Function<String, String> env) {
      this.environment = Objects.requireNonNull(env, "env");
      return this;
    }

    /**
     * The cluster's hash tag, e.g. {@code "{}"}. Unset: none, or the cluster's own when the token map
     * reports one (Dynomite-manager's cluster_describe); a tag different from the reported one fails
     * the build with a clear error.
     *
     * @param tag two ASCII characters, the opening and closing mark, e.g. {@code "{}"}
     * @return this builder
     */
    public Builder hashtag(String tag) {
      KeyHasher.forHashtag(tag);
      this.hashtag = tag;
      return this;
    }

    /**
     * dyno-core's configuration: pools, timeouts, retry policy, consistency, datastore mode (fixed
     * for the client's life; see {@link #config(Supplier)} for one that changes).
     *
     * @param c the configuration
     * @return this builder
     */
    public Builder config(DynoConfig c) {
      Objects.requireNonNull(c, "config");
      this.config = () -> c;
      return this;
    }

    /**
     * A configuration that may change while the client runs (e.g. {@code ArchaiusDynoConfig}): it is
     * read on every call, so changes of {@link DynoConfig#LIVE_SETTINGS} reach the running client.
     * The other settings (and this builder's overrides) are taken from its value at build time.
     *
     * @param source the configuration in force, asked on every call
     * @return this builder
     */
    public Builder config(Supplier<DynoConfig> source) {
      this.config = Objects.requireNonNull(source, "config source");
      return this;
    }

    /**
     * The Spectator registry for the client's meters, dyno-core's and the transport's (default: a
     * private one).
     *
     * @param r the registry
     * @return this builder
     */
    public Builder registry(Registry r) {
      this.registry = r;
      return this;
    }

    /**
     * Datastore mode: talk straight to each node's Redis ({@link Host#datastorePort()}), routed by
     * Dynomite's tokens. AUTH, database selection and TLS then apply; consistency levels do not.
     * Overrides the config's {@code datastoreMode}.
     *
     * @param on true: straight to Redis; false: through Dynomite
     * @return this builder
     */
    public Builder datastoreMode(boolean on) {
      this.datastoreMode = on;
      return this;
    }

    /**
     * Datastore mode: the Redis password (default: each host's {@link Host#password()}). Never logged
     * or shown.
     *
     * @param password the password
     * @return this builder
     */
    public Builder datastorePassword(String password) {
      this.datastorePassword = password;
      return this;
    }

    /**
     * Datastore mode: the Redis ACL user to authenticate as (default: Redis's {@code default} user).
     *
     * @param user the user name, not blank; null: the default user
     * @return this builder
     */
    public Builder datastoreUser(String user) {
      if (user != null && user.isBlank()) {
        throw new IllegalArgumentException("datastoreUser must not be blank");
      }
      this.datastoreUser = user;
      return this;
    }

    /**
     * Datastore mode: the Redis database every connection selects (default 0).
     *
     * @param db the database number, 0 or more
     * @return this builder
     */
    public Builder datastoreDatabase(int db) {
      if (db < 0) {
        throw new IllegalArgumentException("datastoreDatabase must be >= 0, was " + db);
      }
      this.datastoreDatabase = db;
      return this;
    }

    /**
     * TLS, with the given socket factory (its trust decides which certificates are accepted; null:
     * the JVM default) and host name verification on. In datastore mode it goes to each node's Redis
     * TLS port ({@link Host#datastorePort()}); through Dynomite, which speaks no TLS itself, to each
     * node's {@link Host#securePort()} (a TLS terminator in front of Dynomite). Only pooled sockets can
     * use a socket factory: with one, the default transport is {@link Transport#POOLED} (prefer
     * {@link #tlsContext(javax.net.ssl.SSLContext)}, which both transports take).
     *
     * @param factory the TLS socket factory; null: the JVM default
     * @return this builder
     */
    public Builder tls(SSLSocketFactory factory) {
      return tls(factory, true);
    }

    /**
     * TLS with the given context (its trust decides which certificates are accepted), host names
     * verified. Both transports take it; {@link Transport#MULTIPLEXED} needs TLS in this form (or the
     * JVM default: {@code tls(null)}), since its connections use an {@code SSLEngine}; same ports as {@link #tls(SSLSocketFactory)}.
     *
     * @param context the TLS context
     * @return this builder
     */
    public Builder tlsContext(SSLContext context) {
      return tlsContext(context, true);
    }

    /**
     * Like {@link #tlsContext(javax.net.ssl.SSLContext)}, choosing whether host names are verified.
     *
     * @param context the TLS context
     * @param verifyHostname false: a trusted certificate is accepted for any name
     * @return this builder
     */
    public Builder tlsContext(SSLContext context, boolean verifyHostname) {
      Objects.requireNonNull(context, "TLS context (tls(null) means the JVM default)");
      this.tls =
          new JedisConnectionFactory.Tls(context.getSocketFactory(), verifyHostname, context);
      return this;
    }

    /**
     * Like {@link #tls(SSLSocketFactory)}, choosing whether host names are verified.
     *
     * @param factory the TLS socket factory; null: the JVM default
     * @param verifyHostname false: a trusted certificate is accepted for any name
     * @return this builder
     */
    public Builder tls(SSLSocketFactory factory, boolean verifyHostname) {
      this.tls = new JedisConnectionFactory.Tls(factory, verifyHostname);
      return this;
    }

    /**
     * Values longer than {@code bytes} are stored compressed (0 = off; see {@link #readCompressed} for
     * reading compressed values back once it is off). Overrides the {@code compressionStrategy} and
     * {@code config.compressionThreshold} properties of an {@code ArchaiusDynoConfig} given to
     * {@link #config(Supplier)} (read once, at build; a bad value fails the build naming the property).
     *
     * @param bytes the threshold in bytes, 0 or more; 0: compression off
     * @return this builder
     */
    public Builder compressionThreshold(int bytes) {
      new ValueCodec(bytes); // validates
      this.compressionThreshold = bytes;
      return this;
    }

    /**
     * Which compressed formats reads decode (default: Dyno's own while compressing, none when
     * compression is off: values are then returned exactly as stored). Pass {@link CompressedFormat#DYNO}
     * to keep reading values compressed earlier after turning compression off, and
     * {@link CompressedFormat#NETFLIX_DYNO} to read what Netflix's Dyno wrote.
     *
     * @param formats the formats to decode; none: values are returned as stored
     * @return this builder
     */
    public Builder readCompressed(CompressedFormat... formats) {
      EnumSet<CompressedFormat> set = EnumSet.noneOf(CompressedFormat.class);
      for (CompressedFormat f : formats) {
        set.add(Objects.requireNonNull(f, "readCompressed: a format is null"));
      }
      this.readCompressed = set;
      return this;
    }

    /**
     * The most a stored value may decompress to (default 64 MiB); beyond it a read fails naming the
     * key, before anything that size is allocated.
     *
     * @param bytes the bound in bytes, 1 or more
     * @return this builder
     */
    public Builder maxDecompressedSize(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxDecompressedSize must be >= 1 byte, was " + bytes);
      }
      this.maxDecompressedSize = bytes;
      return this;
    }

    /**
     * Mirrors writes of {@code percent}% of keys (chosen by key hash) to {@code shadowClient}
     * through a queue of {@code queueCapacity}; a full queue drops (and counts) the write.
     * The shadow client is closed with this client.
     *
     * @param shadowClient the client of the shadow cluster
     * @param percent the share of keys mirrored, 0 to 100
     * @param queueCapacity writes waiting for the shadow at most, 1 or more
     * @return this builder
     */
    public Builder shadowCluster(UnifiedJedis shadowClient, double percent, int queueCapacity) {
      this.shadow = Objects.requireNonNull(shadowClient, "shadowClient");
      if (percent < 0 || percent > 100) {
        throw new IllegalArgumentException("shadow percent must be within 0..100, was " + percent);
      }
      if (queueCapacity < 1) {
        throw new IllegalArgumentException(
            "shadow queueCapacity must be >= 1, was " + queueCapacity);
      }
      this.shadowPercent = percent;
      this.shadowQueueCapacity = queueCapacity;
      return this;
    }

    /**
     * How often the topology is re-read from the suppliers (default 30 s).
     *
     * @param period the period, positive
     * @return this builder
     */
    public Builder topologyRefreshPeriod(Duration period) {
      if (period == null || period.isNegative() || period.isZero()) {
        throw new IllegalArgumentException("topologyRefreshPeriod must be positive, was " + period);
      }
      this.refreshPeriod = period;
      return this;
    }

    /**
     * How commands travel to each node (default {@link Transport#MULTIPLEXED}, the faster on real
     * Dynomite: see docs/performance.md). With
     * {@link Transport#MULTIPLEXED}, {@link #muxConnectionsPerNode} sets the shared sockets per node
     * and consistency level and {@link #muxMaxInFlight} the requests unanswered on each;
     * {@code maxConnsPerHost} then only bounds the callers handing a command over at one instant.
     * Overrides the {@code connection.transport} property of an {@code ArchaiusDynoConfig} given to
     * {@link #config(Supplier)} (as do the {@code mux*} methods their properties).
     *
     * @param t the transport
     * @return this builder
     */
    public Builder transport(Transport t) {
      this.transport = Objects.requireNonNull(t, "transport");
      return this;
    }

    /**
     * Multiplexed transport: shared connections per node and consistency level (default 1).
     *
     * @param n the number of connections
     * @return this builder
     */
    public Builder muxConnectionsPerNode(int n) {
      this.muxConnectionsPerNode = TransportSettings.CONNECTIONS_PER_NODE.check(n);
      return this;
    }

    /**
     * Multiplexed transport: requests written or queued but not answered per shared connection
     * (default 1024; a pipeline counts once). A command finding its connection full waits for room
     * as long as a pool borrow would ({@code maxTimeoutWhenExhausted}, within the call's time
     * left), then is refused unsent, naming the node and the limit, and may go to another replica.
     *
     * @param n the most requests in flight per connection
     * @return this builder
     */
    public Builder muxMaxInFlight(int n) {
      this.muxMaxInFlight = TransportSettings.MAX_IN_FLIGHT.check(n);
      return this;
    }

    /**
     * Multiplexed transport: writes per shared connection that may await their replies (default 1).
     * Commands submitted meanwhile queue and leave together in one write when a reply completes one;
     * an idle connection writes at once. 1 makes the largest batches (the least server CPU per
     * command under load); 0 lifts the bound (write whenever the I/O thread is free).
     *
     * @param n the most writes awaiting replies per connection; 0: no bound
     * @return this builder
     */
    public Builder muxMaxWritesInFlight(int n) {
      this.muxMaxWritesInFlight = TransportSettings.MAX_WRITES_IN_FLIGHT.check(n);
      return this;
    }

    /**
     * Multiplexed transport: the largest bulk string accepted in a reply (default and most 512 MiB,
     * Redis's own limit); a larger one closes the connection, naming the node.
     *
     * @param bytes the largest bulk string, in bytes
     * @return this builder
     */
    public Builder muxMaxBulkBytes(int bytes) {
      this.muxMaxBulkBytes = TransportSettings.MAX_BULK_BYTES.check(bytes);
      return this;
    }

    /**
     * The client's default call options (consistency, deadline, hedging, retrying non-idempotent
     * commands); a view made by {@code withOptions} replaces them for its calls.
     *
     * @param options the defaults
     * @return this builder
     */
    public Builder callOptions(CallOptions options) {
      this.defaults = Objects.requireNonNull(options, "callOptions");
      return this;
    }

    /**
     * Adds a listener of every call to a node: its candidates, each attempt (the node, why it was
     * chosen, how it ended) and its end; the answer to "why did this call go to rack2?" (see
     * {@link CallListener}). Without one calls pay nothing for it. The one-line-per-call DEBUG log
     * ({@code io.dyno.core.events.LoggingCallListener}) is installed by itself when that logger is
     * DEBUG-enabled at build.
     *
     * @param factory makes each call's listener
     * @return this builder
     */
    public Builder eventListener(CallListener.Factory factory) {
      eventListeners.add(Objects.requireNonNull(factory, "eventListener"));
      return this;
    }

    /**
     * Starts the client: reads the first topology and connects to its nodes. A bad setting fails
     * with an {@link IllegalArgumentException} naming it (a {@link #localRack} the cluster lacks
     * included); no usable first topology fails with a {@link DynoException} naming its sources,
     * unless the configuration's {@code failOnStartupIfNoHosts} is false.
     *
     * @return the client, to share and close once
     */
    public DynoJedisClient build() {
      Supplier<DynoConfig> source = config != null ? config : DynoConfig::defaults;
      DynoConfig first = Objects.requireNonNull(source.get(), "config source returned null");
      String app = applicationName != null ? applicationName : first.applicationName();
      boolean datastore = datastoreMode != null ? datastoreMode : first.datastoreMode();
      PinnedConfig live = new PinnedConfig(source, app, datastore);
      DynoConfig cfg = live.get();
      if (cfg.datastoreMode() && defaults.consistency() != null) {
        throw new IllegalArgumentException("DynoJedisClient " + app + ": a consistency level ("
            + defaults.consistency() + ") has no meaning in datastore mode");
      }
      if (!cfg.datastoreMode()
          && (datastorePassword != null || datastoreUser != null || datastoreDatabase != 0)) {
        throw new IllegalArgumentException(
            "DynoJedisClient " + app + ": datastorePassword, datastoreUser and"
                + " datastoreDatabase apply only in datastore mode (straight to Redis): Dynomite's client port does not"
                + " accept AUTH or SELECT (it closes the connection). Set datastoreMode(true) or remove them");
      }
      // Compression is this module's setting; a property source (Archaius) may carry it under
      // Dyno's names.
      int threshold = compressionThreshold != null
          ? compressionThreshold
          : source instanceof DriverProperties props ? CompressionSettings.threshold(props) : 0;
      // TLS given only as a socket factory can be used by pooled sockets alone (the multiplexed
      // transport's connections need an SSLEngine): then pooled is the default; chosen explicitly,
      // MULTIPLEXED refuses it by name.
      Transport defaultTransport =
          tls != null && tls.context() == null && tls.socketFactory() != null
              ? Transport.POOLED
              : Transport.MULTIPLEXED;
      TransportSettings.Values wire = TransportSettings.resolve(
          transport,
          muxConnectionsPerNode,
          muxMaxInFlight,
          muxMaxWritesInFlight,
          muxMaxBulkBytes,
          source instanceof DriverProperties props ? props : null,
          defaultTransport);
      // One registry for the engine's meters and the transport's (made before the engine).
      Registry meterRegistry = registry != null ? registry : new DefaultRegistry();
      // One clock for the engine's deadlines and the transport's timeouts, which bound each other.
      Ticker ticker = Ticker.system();
      // dyno-core's engine already connects to Host.datastorePort() in datastore mode.
      JedisConnectionFactory connections =
          new JedisConnectionFactory(new JedisConnectionFactory.Datastore(
              cfg.datastoreMode(), datastoreUser, datastorePassword, datastoreDatabase, tls));
      NodeConnectionFactory<JedisNodeConnection> nodeConnections = connections;
      AutoCloseable transportClose = () -> {};
      if (wire.transport() == Transport.MULTIPLEXED) {
        // A full connection is waited for like an exhausted pool (the value at build).
        MuxSettings mux = MuxSettings.defaults()
            .withMaxInFlight(wire.maxInFlight())
            .withMaxWritesInFlight(wire.maxWritesInFlight())
            .withMaxBulkBytes(wire.maxBulkBytes())
            .withInFlightWait(
                cfg.maxTimeoutWhenExhausted()) // AUTH and SELECT: per node, from the datastore
            // settings
            .withTicker(ticker);
        MuxTransport t = new MuxTransport(
            connections,
            mux,
            wire.connectionsPerNode(),
            2,
            app,
            new Meters(meterRegistry, app),
            tls == null ? null : tls.engineContext(),
            tls != null && tls.verifyHostname(),
            cfg.datastoreMode());
        nodeConnections = t;
        transportClose = t;
      }
      DynoExecutor<JedisNodeConnection> dyno;
      TopologyRefresher ownedRefresher = null;
      try {
        TopologyRefresher refresher = topologySupplier == null ? refresher(app, cfg) : null;
        Supplier<Topology> topology = refresher != null ? refresher::current : topologySupplier;
        try {
          DynoEngine.Builder<JedisNodeConnection> engineBuilder = DynoEngine.builder(
                  nodeConnections)
              .config(live)
              .topology(topology)
              .registry(meterRegistry)
              .ticker(ticker);
          eventListeners.forEach(engineBuilder::listener);
          DynoEngine<JedisNodeConnection> engine = engineBuilder.build();
          if (refresher != null) {
            refresher.addListener(engine);
            // The first refresh ran before the engine existed; record it, then every later one.
            Meters meters = new Meters(engine.registry(), app);
            meters.topologyRefresh(refresher.status().healthy());
            refresher.addRefreshObserver(status -> meters.topologyRefresh(status.healthy()));
            ownedRefresher = refresher;
          }
          dyno = engine;
        } catch (RuntimeException e) {
          if (refresher != null) {
            refresher.close();
          }
          throw e;
        }
      } catch (Exception e) {
        try {
          transportClose.close();
        } catch (Exception closing) {
          e.addSuppressed(closing);
        }
        if (e instanceof RuntimeException r) {
          throw r;
        }
        throw new DynoException(
            "DynoJedisClient " + app + ": could not start: " + e.getMessage(), e);
      }
      ShadowWriter shadowWriter = null;
      if (shadow != null) {
        UnifiedJedis target = shadow;
        // qualified: clashes with DynoJedisClient.Builder
        redis.clients.jedis.Builder<Object> raw = new redis.clients.jedis.Builder<>() {
          @Override
          public Object build(Object data) {
            return data;
          }
        };
        shadowWriter = new ShadowWriter(
            shadowPercent,
            shadowQueueCapacity,
            args -> target.executeCommand(new CommandObject<>(args, raw)));
      }
      CommandTable table = new CommandTable(
          cfg.datastoreMode() ? CommandTable.Mode.DATASTORE : CommandTable.Mode.DYNOMITE);
      Planner planner =
          new Planner(table, new ValueCodec(threshold, maxDecompressedSize, readCompressed));
      AutoCloseable shadowClose = shadow != null ? shadow : () -> {};
      AutoCloseable refresherClose = ownedRefresher != null ? ownedRefresher : () -> {};
      ClientCore core = new ClientCore(
          app,
          dyno,
          planner,
          shadowWriter,
          nodeConnections instanceof MuxTransport mt
              ? (BooleanSupplier) mt::onTransportThread
              : null,
          live,
          refresherClose,
          shadowClose,
          transportClose);
      return new DynoJedisClient(new DynoCommandExecutor(core, defaults, true), false);
    }

    /**
     * The caller's configuration with this builder's application name and mode pinned (they cannot
     * change under a running client); rebuilt only when the source hands out a new value.
     */
    private static final class PinnedConfig implements Supplier<DynoConfig> {
      private record Pair(DynoConfig in, DynoConfig out) {}

      private final Supplier<DynoConfig> source;
      private final String app;
      private final boolean datastore;
      private volatile Pair last;

      PinnedConfig(Supplier<DynoConfig> source, String app, boolean datastore) {
        this.source = source;
        this.app = app;
        this.datastore = datastore;
      }

      @Override
      public DynoConfig get() {
        DynoConfig in = source.get();
        Pair p = last;
        if (p != null && (in == p.in || in == null)) {
          return p.out;
        }
        DynoConfig out;
        try {
          out = in.applicationName().equals(app) && in.datastoreMode() == datastore
              ? in
              : in.toBuilder().applicationName(app).datastoreMode(datastore).build();
        } catch (IllegalArgumentException e) {
          if (p == null) {
            throw new IllegalArgumentException("DynoJedisClient " + app + ": " + e.getMessage(), e);
          }
          // e.g. a consistency level arriving while this client runs in datastore mode: keep the
          // last good one.
          LoggerFactory.getLogger(DynoJedisClient.class)
              .warn(
                  "DynoJedisClient {}: ignoring a configuration change that does not fit this client: {}",
                  app,
                  e.getMessage());
          out = p.out;
        }
        last = new Pair(in, out);
        return out;
      }
    }

    /** dyno-core's refresher over the host and token suppliers: re-read every {@link #topologyRefreshPeriod}. */
    private TopologyRefresher refresher(String app, DynoConfig cfg) {
      // A source that knows hosts and tokens at once (cluster_describe) may be given once, either
      // way.
      if (hostSupplier == null && tokenMapSupplier instanceof TopologySupplier both) {
        hostSupplier = both;
      } else if (tokenMapSupplier == null && hostSupplier instanceof TopologySupplier both) {
        tokenMapSupplier = both;
      }
      if (hostSupplier == null || tokenMapSupplier == null) {
        throw new IllegalArgumentException(
            "DynoJedisClient " + app + ": no "
                + (hostSupplier == null ? "hostSupplier" : "tokenMapSupplier")
                + ". The simplest: tokenMapSupplier("
                + "ClusterDescribeTokenMapSupplier.builder().endpoint(\"http://<node>:22222/cluster_describe\").build()),"
                + " which is the host source too; or give a HostSupplier and a TokenMapSupplier, or topology(...)");
      }
      Locality locality = Locality.resolve(localRack, localDatacenter, environment);
      TopologyRefresher r = TopologyRefresher.builder()
          .hostSupplier(hostSupplier)
          .tokenMapSupplier(tokenMapSupplier)
          .hashtag(hashtag)
          .locality(locality)
          .rackAffinity(cfg.localZoneAffinity())
          .period(refreshPeriod)
          .build();
      try {
        String sources = hostSupplier == tokenMapSupplier
            ? String.valueOf(hostSupplier)
            : hostSupplier + " and " + tokenMapSupplier;
        StartupChecks.firstTopology(app, cfg, r, r.start(), sources);
        // Only a rack the application named is held to the cluster; one from LOCAL_RACK or the EC2
        // zone may be a zone without nodes (a warning, and requests spread, as before).
        if (localRack != null && !localRack.isBlank() && !allowUnknownLocalRack) {
          StartupChecks.localRack(app, r.current(), locality.rack(), locality.datacenter());
        }
      } catch (RuntimeException e) {
        r.close();
        throw e;
      }
      return r;
    }
  }
}
