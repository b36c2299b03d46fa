package io.dyno.core.topology;

import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * Reads the topology over HTTP from {@code cluster_describe}: Dynomite's own
 * ({@code http://node:22222/cluster_describe}) or Dynomite-manager's
 * ({@code http://node:8080/REST/v1/admin/cluster_describe}); the shape is detected per response
 * (see {@link ClusterDescription}).
 *
 * <p>The configured endpoints, then (optionally) each known host's admin endpoint, are asked in
 * turn until one answers with a valid document; the next call starts with the one that answered
 * last. If none answers, the exception lists every endpoint with its reason, an error page by its
 * status and title only; it is an {@link UnusableAnswerException} when one was reached but gave
 * something unusable (a status other than 200 or 5xx, a body that is not JSON, such as Dynomite's
 * {@code OK} for an admin path it does not know, a malformed document, an answer that is not HTTP
 * from a RESP or peer port). Each reason names its likely cause: nothing listening, no answer in
 * time, a port that does not speak HTTP. Each call re-reads the
 * document: tokens are never cached.
 *
 * <p>As a {@link TopologySupplier} this is also a host source (cluster_describe lists every node);
 * it reports every node UP because cluster_describe does not reflect liveness. As a
 * {@link HashtagSource} it reports the hash tag Dynomite-manager gives, which the refresher uses
 * (or refuses when the client configured another).
 */
public final class ClusterDescribeTokenMapSupplier
    implements TopologySupplier, HashtagSource, AutoCloseable {
  /** Dynomite's admin (stats) port. */
  public static final int DYNOMITE_ADMIN_PORT = 22222;
  /** The path of Dynomite's own {@code cluster_describe} on {@link #DYNOMITE_ADMIN_PORT}. */
  public static final String DYNOMITE_PATH = "/cluster_describe";
  /** Dynomite-manager's (the sidecar's) HTTP port. */
  public static final int MANAGER_PORT = 8080;
  /** The path of Dynomite-manager's {@code cluster_describe} on {@link #MANAGER_PORT}. */
  public static final String MANAGER_PATH = "/REST/v1/admin/cluster_describe";

  private final List<URI> endpoints;
  private final int knownHostsPort;
  private final String knownHostsPath;
  private final IntUnaryOperator clientPortFromPeerPort;
  private final Duration requestTimeout;
  private final HttpClient http;
  private final ExecutorService ownedExecutor;
  private final AtomicInteger lastGood = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile ClusterDescription lastDescription;

  private ClusterDescribeTokenMapSupplier(Builder b) {
    this.endpoints = List.copyOf(b.endpoints);
    this.knownHostsPort = b.knownHostsPort;
    this.knownHostsPath = b.knownHostsPath;
    this.clientPortFromPeerPort = b.clientPortFromPeerPort;
    this.requestTimeout = b.requestTimeout;
    if (b.httpClient != null) {
      this.http = b.httpClient;
      this.ownedExecutor = null;
    } else {
      AtomicInteger n = new AtomicInteger();
      this.ownedExecutor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "dyno-cluster-describe-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      this.http = HttpClient.newBuilder()
          .connectTimeout(b.connectTimeout)
          .executor(ownedExecutor)
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
    }
  }

  /** {@return a new builder; at least one endpoint or {@link Builder#askKnownHosts} is required} */
  public static Builder builder() {
    return new Builder();
  }

  /** Asks the endpoints in turn; the first valid document wins. */
  @Override
  public List<HostToken> getHostTokens() throws Exception {
    return describe(List.of()).hostTokens();
  }

  /** Like {@link #getHostTokens()}, also asking each of {@code hosts}' admin endpoint if so configured. */
  @Override
  public List<HostToken> getTokens(Collection<Host> hosts) throws Exception {
    return describe(hosts).hostTokens();
  }

  /**
   * Reads the whole document (hash tag included), asking the endpoints in turn; blocks the calling
   * thread for at most the request timeout per endpoint asked. Thread-safe.
   *
   * @param knownHosts hosts whose admin endpoint is also asked when {@link Builder#askKnownHosts} is
   *     set; may be empty or null
   * @return the first valid document
   * @throws IOException when no endpoint answered (the message lists each endpoint with its reason);
   *     an {@link UnusableAnswerException} when one answered with something unusable
   * @throws InterruptedException when the calling thread is interrupted while waiting
   * @throws IllegalStateException when this supplier is closed
   */
  public ClusterDescription describe(Collection<Host> knownHosts)
      throws IOException, InterruptedException {
    if (closed.get()) {
      throw new IllegalStateException("ClusterDescribeTokenMapSupplier is closed");
    }
    List<URI> candidates = candidates(knownHosts);
    if (candidates.isEmpty()) {
      throw new DynoException("cluster_describe: no endpoint configured and no known host to ask");
    }
    int start = Math.floorMod(lastGood.get(), candidates.size());
    List<String> failures = new ArrayList<>();
    boolean unusable = false;
    for (int i = 0; i < candidates.size(); i++) {
      int idx = (start + i) % candidates.size();
      URI uri = candidates.get(idx);
      try {
        ClusterDescription d = fetch(uri);
        lastGood.set(idx);
        lastDescription = d;
        return d;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        // A malformed document (JsonException) is as unusable as a wrong status: the URL is at
        // fault.
        unusable |= e instanceof UnusableAnswerException || e instanceof IllegalArgumentException;
        failures.add(uri + " → " + reason(e));
      }
    }
    String message = "cluster_describe: no endpoint answered with a valid document: "
        + String.join("; ", failures);
    throw unusable ? new UnusableAnswerException(message) : new IOException(message);
  }

  /** The hash tag of the last document read successfully (Dynomite-manager's shape only), or null. */
  @Override
  public String clusterHashtag() {
    ClusterDescription d = lastDescription;
    return d == null ? null : d.hashtag();
  }

  /** {@return the last document read successfully, or null when none was} */
  public ClusterDescription lastDescription() {
    return lastDescription;
  }

  private List<URI> candidates(Collection<Host> knownHosts) {
    LinkedHashSet<URI> all = new LinkedHashSet<>(endpoints);
    if (knownHostsPort > 0 && knownHosts != null) {
      for (Host h : knownHosts) {
        String addr = h.address().contains(":") ? "[" + h.address() + "]" : h.address();
        all.add(URI.create("http://" + addr + ":" + knownHostsPort + knownHostsPath));
      }
    }
    return new ArrayList<>(all);
  }

  private ClusterDescription fetch(URI uri) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(requestTimeout)
        .GET()
        .header("Accept", "application/json")
        .build();
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw DescribeFailures.noAnswer(e, uri, http.connectTimeout(), requestTimeout);
    }
    String body = response.body() == null ? "" : response.body();
    int status = response.statusCode();
    if (status != 200) {
      throw DescribeFailures.badStatus(status, body);
    }
    if (!DescribeFailures.looksLikeJson(body)) {
      throw DescribeFailures.notJson(body);
    }
    return ClusterDescription.parse(body, clientPortFromPeerPort);
  }

  private static String reason(Exception e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** Shuts the HTTP threads this supplier created. Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && ownedExecutor != null) {
      ownedExecutor.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "ClusterDescribeTokenMapSupplier" + endpoints
        + (knownHostsPort > 0 ? " + known hosts at :" + knownHostsPort + knownHostsPath : "");
  }

  /** Configures the supplier; at least one endpoint or {@link #askKnownHosts} is required. */
  public static final class Builder {
    private final List<URI> endpoints = new ArrayList<>();
    private int knownHostsPort = -1;
    private String knownHostsPath = DYNOMITE_PATH;
    private IntUnaryOperator clientPortFromPeerPort = ClusterDescription.DEFAULT_CLIENT_PORT;
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration requestTimeout = Duration.ofSeconds(5);
    private HttpClient httpClient;

    private Builder() {}

    /**
     * Adds an endpoint URL, e.g. {@code http://10.0.0.1:22222/cluster_describe}. Endpoints are asked in
     * the order added.
     *
     * @param url an http(s) URL with a host
     * @return this builder
     * @throws IllegalArgumentException naming the URL when it is not one
     */
    public Builder endpoint(String url) {
      URI uri;
      try {
        uri = URI.create(Objects.requireNonNull(url, "cluster_describe endpoint"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cluster_describe endpoint \"" + url + "\" is not a URL: " + e.getMessage());
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
          || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "cluster_describe endpoint \"" + url + "\" must be an http(s) URL with a host");
      }
      endpoints.add(uri);
      return this;
    }

    /**
     * Adds several endpoints, as {@link #endpoint(String)} each, in order.
     *
     * @param urls http(s) URLs with a host
     * @return this builder
     */
    public Builder endpoints(Collection<String> urls) {
      urls.forEach(this::endpoint);
      return this;
    }

    /**
     * Also asks every host the refresher already knows, at {@code http://address:port/path}, after the
     * endpoints.
     *
     * @param port the admin port, 1..65535 (e.g. {@link #DYNOMITE_ADMIN_PORT} or {@link #MANAGER_PORT})
     * @param path the path (e.g. {@link #DYNOMITE_PATH} or {@link #MANAGER_PATH}); a leading {@code /}
     *     is added when missing
     * @return this builder
     */
    public Builder askKnownHosts(int port, String path) {
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(
            "cluster_describe known-hosts port must be 1..65535, was " + port);
      }
      this.knownHostsPort = port;
      this.knownHostsPath = path.startsWith("/") ? path : "/" + path;
      return this;
    }

    /**
     * How the client port is derived from the peer port of Dynomite's own shape. Default:
     * {@code peer + 1} (8101 → 8102). Use e.g. {@code p -> 8102} when every node serves clients on 8102.
     *
     * @param f maps a node's peer port to its client port; not null
     * @return this builder
     */
    public Builder clientPortFromPeerPort(IntUnaryOperator f) {
      this.clientPortFromPeerPort = Objects.requireNonNull(f, "clientPortFromPeerPort");
      return this;
    }

    /**
     * Sets how long connecting to an endpoint may take (default 2 s). Ignored with {@link #httpClient}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return this;
    }

    /**
     * Sets how long one endpoint's whole answer may take (default 5 s).
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder requestTimeout(Duration d) {
      this.requestTimeout = positive(d, "requestTimeout");
      return this;
    }

    /**
     * Uses this client instead of creating one (its threads and timeouts are then the caller's
     * business, and {@link ClusterDescribeTokenMapSupplier#close()} leaves it open).
     *
     * @param client the client; not null
     * @return this builder
     */
    public Builder httpClient(HttpClient client) {
      this.httpClient = Objects.requireNonNull(client, "httpClient");
      return this;
    }

    /**
     * {@return the supplier; close it to stop the HTTP threads it created}
     *
     * @throws IllegalArgumentException when neither an endpoint nor {@link #askKnownHosts} was given
     */
    public ClusterDescribeTokenMapSupplier build() {
      if (endpoints.isEmpty() && knownHostsPort < 0) {
        throw new IllegalArgumentException(
            "cluster_describe supplier needs at least one endpoint or askKnownHosts(...)");
      }
      return new ClusterDescribeTokenMapSupplier(this);
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
