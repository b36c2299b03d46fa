package io.dyno.jedis;

import com.netflix.spectator.api.Registry;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.Topology;
import io.dyno.core.topology.NodeStateSource;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.dyno.jedis.internal.TransportSettings;
import io.dyno.jedis.internal.ValueCodec;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.UnifiedJedis;

/** Builds a {@link DynoJedisClient}; validates eagerly and names the bad setting. */
public final class DynoJedisClientBuilder {
  private final ClientSettings settings = new ClientSettings();

  DynoJedisClientBuilder() {}

  /**
   * Names the client in metrics, logs and errors (default: the config's application name).
   * @param name the application name, not blank
   * @return this builder
   */
  public DynoJedisClientBuilder applicationName(String name) {
    settings.applicationName = ClientSettings.notBlank(name, "applicationName");
    return this;
  }

  /**
   * Which nodes exist and whether they are up; re-read every {@link #topologyRefreshPeriod}.
   * @param s the host source (a static list, Eureka, your own)
   * @return this builder
   */
  public DynoJedisClientBuilder hostSupplier(HostSupplier s) {
    settings.hostSupplier = Objects.requireNonNull(s, "hostSupplier");
    return this;
  }

  /**
   * Which token each node owns; re-read with the hosts.
   * @param s the token source, e.g. {@code ClusterDescribeTokenMapSupplier} asking the nodes
   * @return this builder
   */
  public DynoJedisClientBuilder tokenMapSupplier(TokenMapSupplier s) {
    settings.tokenMapSupplier = Objects.requireNonNull(s, "tokenMapSupplier");
    return this;
  }

  /**
   * Where the current topology comes from (e.g. {@code TopologyRefresher::current}, which you
   * close); replaces host and token suppliers, hashtag and local rack settings.
   * @param s the source of the topology in force, asked on every call
   * @return this builder
   */
  public DynoJedisClientBuilder topology(Supplier<Topology> s) {
    settings.topologySupplier = Objects.requireNonNull(s, "topology");
    return this;
  }

  /**
   * The rack this application runs in: its owners are tried first. Unset, {@code LOCAL_RACK} or
   * {@code EC2_AVAILABILITY_ZONE} is used (one the cluster lacks only warns); set here, one the first
   * topology lacks fails {@link #build()} naming the racks (see {@link #allowUnknownLocalRack()}).
   * @param rack the rack (availability zone) name, as the cluster names it; null: from the environment
   * @return this builder
   */
  public DynoJedisClientBuilder localRack(String rack) {
    settings.localRack = rack;
    return this;
  }

  /**
   * Lets {@link #build()} succeed when {@link #localRack} names a rack the cluster lacks (or one in
   * several datacenters, with no {@link #localDatacenter}): requests then spread over every rack,
   * with one warning. Without it such a rack is taken for a typo.
   * @return this builder
   */
  public DynoJedisClientBuilder allowUnknownLocalRack() {
    settings.allowUnknownLocalRack = true;
    return this;
  }

  /**
   * The datacenter (region) this application runs in: its racks are tried after the local rack,
   * before other datacenters. Unset, {@code LOCAL_DATACENTER} or {@code EC2_REGION} is used, else
   * the local rack's datacenter; needed when the local rack's name exists in several datacenters.
   * @param dc the datacenter name, as the cluster names it; null: from the environment or the rack
   * @return this builder
   */
  public DynoJedisClientBuilder localDatacenter(String dc) {
    settings.localDatacenter = dc;
    return this;
  }

  /** Where {@code LOCAL_RACK} and the like are read (the process environment); tests give their own. */
  DynoJedisClientBuilder environment(Function<String, String> env) {
    settings.environment = Objects.requireNonNull(env, "env");
    return this;
  }

  /**
   * The cluster's hash tag (its {@code hash_tag}). Unset: none, or the one the token map reports
   * (Dynomite-manager's cluster_describe); a tag different from the reported one fails the build.
   * When the token map reports none, the build asks the cluster with one EVAL naming two
   * {@code dyno:hashtag-probe:*} keys (never stored) and fails when the cluster hashes otherwise: a
   * mismatch would give wrong answers to multi-key commands over tagged keys.
   * @param tag two ASCII characters, the opening and closing mark, e.g. {@code "{}"}
   * @return this builder
   */
  public DynoJedisClientBuilder hashtag(String tag) {
    KeyHasher.forHashtag(tag);
    settings.hashtag = tag;
    return this;
  }

  /**
   * dyno-core's configuration: pools, timeouts, retry policy, consistency, datastore mode (fixed
   * for the client's life; see {@link #config(Supplier)} for one that changes).
   * @param c the configuration
   * @return this builder
   */
  public DynoJedisClientBuilder config(DynoConfig c) {
    Objects.requireNonNull(c, "config");
    settings.config = () -> c;
    return this;
  }

  /**
   * A configuration that may change while the client runs (e.g. {@code ArchaiusDynoConfig}), read
   * on every call: changes of {@link DynoConfig#LIVE_SETTINGS} reach the running client, the others
   * are taken at build.
   * @param source the configuration in force, asked on every call
   * @return this builder
   */
  public DynoJedisClientBuilder config(Supplier<DynoConfig> source) {
    settings.config = Objects.requireNonNull(source, "config source");
    return this;
  }

  /**
   * The Spectator registry for the client's meters (default: a private one).
   * @param r the registry
   * @return this builder
   */
  public DynoJedisClientBuilder registry(Registry r) {
    settings.registry = r;
    return this;
  }

  /**
   * Datastore mode (overrides the config's): straight to each node's Redis
   * ({@link Host#datastorePort()}) by Dynomite's tokens; AUTH, database and TLS apply, consistency not.
   * @param on true: straight to Redis; false: through Dynomite
   * @return this builder
   */
  public DynoJedisClientBuilder datastoreMode(boolean on) {
    settings.datastoreMode = on;
    return this;
  }

  /**
   * Datastore mode: the Redis password (default: each host's {@link Host#password()}); never shown.
   * @param password the password
   * @return this builder
   */
  public DynoJedisClientBuilder datastorePassword(String password) {
    settings.datastorePassword = password;
    return this;
  }

  /**
   * Datastore mode: the Redis ACL user to authenticate as (default: Redis's {@code default} user).
   * @param user the user name, not blank; null: the default user
   * @return this builder
   */
  public DynoJedisClientBuilder datastoreUser(String user) {
    settings.datastoreUser = user == null ? null : ClientSettings.notBlank(user, "datastoreUser");
    return this;
  }

  /**
   * Datastore mode: the Redis database every connection selects (default 0).
   * @param db the database number, 0 or more
   * @return this builder
   */
  public DynoJedisClientBuilder datastoreDatabase(int db) {
    settings.datastoreDatabase = ClientSettings.atLeast(db, 0, "datastoreDatabase");
    return this;
  }

  /**
   * TLS with this socket factory, host names verified: to {@link Host#datastorePort()} in datastore
   * mode, else to {@link Host#securePort()} (a TLS terminator in front of Dynomite). Only pooled
   * sockets take a socket factory, so the default transport becomes {@link Transport#POOLED}; prefer
   * {@link #tlsContext(javax.net.ssl.SSLContext)}, which both transports take.
   * @param factory the TLS socket factory; null: the JVM default
   * @return this builder
   */
  public DynoJedisClientBuilder tls(SSLSocketFactory factory) {
    return tls(factory, true);
  }

  /**
   * TLS with this context, host names verified, to the ports of {@link #tls(SSLSocketFactory)}; the
   * form {@link Transport#MULTIPLEXED} needs (or the JVM default: {@code tls(null)}).
   * @param context the TLS context
   * @return this builder
   */
  public DynoJedisClientBuilder tlsContext(SSLContext context) {
    return tlsContext(context, true);
  }

  /**
   * Like {@link #tlsContext(javax.net.ssl.SSLContext)}, choosing whether host names are verified.
   * @param context the TLS context
   * @param verifyHostname false: a trusted certificate is accepted for any name
   * @return this builder
   */
  public DynoJedisClientBuilder tlsContext(SSLContext context, boolean verifyHostname) {
    Objects.requireNonNull(context, "TLS context (tls(null) means the JVM default)");
    settings.tls =
        new JedisConnectionFactory.Tls(context.getSocketFactory(), verifyHostname, context);
    return this;
  }

  /**
   * Like {@link #tls(SSLSocketFactory)}, choosing whether host names are verified.
   * @param factory the TLS socket factory; null: the JVM default
   * @param verifyHostname false: a trusted certificate is accepted for any name
   * @return this builder
   */
  public DynoJedisClientBuilder tls(SSLSocketFactory factory, boolean verifyHostname) {
    settings.tls = new JedisConnectionFactory.Tls(factory, verifyHostname);
    return this;
  }

  /**
   * Values longer than {@code bytes} are stored compressed (0 = off; see {@link #readCompressed}).
   * Overrides the {@code compressionStrategy} and {@code config.compressionThreshold} properties of
   * an {@code ArchaiusDynoConfig} (read at build).
   * @param bytes the threshold in bytes, 0 or more; 0: compression off
   * @return this builder
   */
  public DynoJedisClientBuilder compressionThreshold(int bytes) {
    new ValueCodec(bytes); // validates
    settings.compressionThreshold = bytes;
    return this;
  }

  /**
   * Which compressed formats reads decode (default: Dyno's own while compressing, else none):
   * {@link CompressedFormat#DYNO} keeps reading values compressed before compression was turned off,
   * {@link CompressedFormat#NETFLIX_DYNO} reads what Netflix's Dyno wrote.
   * @param formats the formats to decode; none: values are returned as stored
   * @return this builder
   */
  public DynoJedisClientBuilder readCompressed(CompressedFormat... formats) {
    settings.readCompressed = EnumSet.noneOf(CompressedFormat.class);
    for (CompressedFormat f : formats) {
      settings.readCompressed.add(Objects.requireNonNull(f, "readCompressed: a format is null"));
    }
    return this;
  }

  /**
   * The most a stored value may decompress to (default 64 MiB); beyond it a read fails naming the
   * key, before anything that size is allocated.
   * @param bytes the bound in bytes, 1 or more
   * @return this builder
   */
  public DynoJedisClientBuilder maxDecompressedSize(int bytes) {
    settings.maxDecompressedSize = ClientSettings.atLeast(bytes, 1, "maxDecompressedSize");
    return this;
  }

  /**
   * Mirrors writes of {@code percent}% of keys (by key hash) to {@code shadowClient}, closed with
   * this client, through a queue of {@code queueCapacity}; a full queue drops (and counts) a write.
   * @param shadowClient the client of the shadow cluster
   * @param percent the share of keys mirrored, 0 to 100
   * @param queueCapacity writes waiting for the shadow at most, 1 or more
   * @return this builder
   */
  public DynoJedisClientBuilder shadowCluster(
      UnifiedJedis shadowClient, double percent, int queueCapacity) {
    settings.shadow(shadowClient, percent, queueCapacity);
    return this;
  }

  /**
   * How often the topology is re-read from the suppliers (default 30 s).
   * @param period the period, positive
   * @return this builder
   */
  public DynoJedisClientBuilder topologyRefreshPeriod(Duration period) {
    settings.refreshPeriod = ClientSettings.positive(period, "topologyRefreshPeriod");
    return this;
  }

  /**
   * How commands travel to each node (default {@link Transport#MULTIPLEXED}; see
   * docs/performance.md); then {@link #muxConnectionsPerNode} and {@link #muxMaxInFlight} apply and
   * {@code maxConnsPerHost} only bounds the callers handing a command over at one instant. Overrides
   * {@code connection.transport} of an {@code ArchaiusDynoConfig} (as the {@code mux*} methods do
   * their properties).
   * @param t the transport
   * @return this builder
   */
  public DynoJedisClientBuilder transport(Transport t) {
    settings.transport = Objects.requireNonNull(t, "transport");
    return this;
  }

  /**
   * Multiplexed transport: shared connections per node and consistency level (default 1).
   * @param n the number of connections
   * @return this builder
   */
  public DynoJedisClientBuilder muxConnectionsPerNode(int n) {
    settings.muxConnectionsPerNode = TransportSettings.CONNECTIONS_PER_NODE.check(n);
    return this;
  }

  /**
   * Multiplexed transport: requests unanswered per shared connection (default 1024; a pipeline
   * counts once). A command finding it full waits as a pool borrow would, then is refused unsent,
   * naming the node and the limit, and may go to another replica.
   * @param n the most requests in flight per connection
   * @return this builder
   */
  public DynoJedisClientBuilder muxMaxInFlight(int n) {
    settings.muxMaxInFlight = TransportSettings.MAX_IN_FLIGHT.check(n);
    return this;
  }

  /**
   * Multiplexed transport: writes per shared connection that may await their replies (default 1;
   * the largest batches, the least server CPU under load). Commands submitted meanwhile leave
   * together in one write; 0 lifts the bound.
   * @param n the most writes awaiting replies per connection; 0: no bound
   * @return this builder
   */
  public DynoJedisClientBuilder muxMaxWritesInFlight(int n) {
    settings.muxMaxWritesInFlight = TransportSettings.MAX_WRITES_IN_FLIGHT.check(n);
    return this;
  }

  /**
   * Multiplexed transport: the largest bulk string in a reply (default and most 512 MiB, as Redis).
   * @param bytes the largest bulk string, in bytes
   * @return this builder
   */
  public DynoJedisClientBuilder muxMaxBulkBytes(int bytes) {
    settings.muxMaxBulkBytes = TransportSettings.MAX_BULK_BYTES.check(bytes);
    return this;
  }

  /**
   * The client's default call options (consistency, deadline, hedging, retrying non-idempotent
   * commands); a view made by {@code withOptions} replaces them for its calls.
   * @param options the defaults
   * @return this builder
   */
  public DynoJedisClientBuilder callOptions(CallOptions options) {
    settings.defaults = Objects.requireNonNull(options, "callOptions");
    return this;
  }

  /**
   * Adds a listener of every call: its candidates, each attempt and its end ("why did this call go
   * to rack2?", see {@link CallListener}). The one-line-per-call DEBUG log installs itself when
   * {@code io.dyno.core.events.LoggingCallListener} is DEBUG-enabled at build.
   * @param factory makes each call's listener
   * @return this builder
   */
  public DynoJedisClientBuilder eventListener(CallListener.Factory factory) {
    settings.eventListeners.add(Objects.requireNonNull(factory, "eventListener"));
    return this;
  }

  /**
   * Sets where each node's Dynomite state is read from (every {@code nodeStatePollInterval}, and
   * once before {@link #build} returns): calls stay off a node that is not NORMAL (STANDBY while it
   * is warmed up, WRITES_ONLY, ...) while another replica can take them. Default: none (nodes are
   * judged by their connections alone): a fixed admin port is wrong wherever several nodes share
   * an address, so say where the states are, e.g. {@code NodeStateSource.dynomiteAdmin(22222)} for
   * Dynomite's default admin port on nodes of their own. Not used in datastore mode.
   * @param source the source, or null to read no states
   * @return this builder
   */
  public DynoJedisClientBuilder nodeStates(NodeStateSource source) {
    settings.nodeStates = source;
    return this;
  }

  /**
   * Starts the client: reads the first topology and connects. A bad setting (a {@link #localRack}
   * the cluster lacks included) fails with an {@link IllegalArgumentException} naming it; no usable
   * first topology with a {@link DynoException} naming its sources (unless
   * {@code failOnStartupIfNoHosts} is false).
   * @return the client, to share and close once
   */
  public DynoJedisClient build() {
    return ClientAssembly.build(settings);
  }
}
