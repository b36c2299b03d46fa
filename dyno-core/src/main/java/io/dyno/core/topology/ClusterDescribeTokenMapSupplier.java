package io.dyno.core.topology;

import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  /** Where the two cluster_describe endpoints are, for a message about a wrong URL. */
  private static final String WHERE_IT_IS = " Dynomite's is " + DYNOMITE_PATH
      + " on its stats port " + DYNOMITE_ADMIN_PORT + " (stats_listen in dynomite.yml),"
      + " Dynomite-manager's " + MANAGER_PATH + " on its port " + MANAGER_PORT;

  private static final int GIST_LENGTH = 80;
  private static final Pattern HTML_TITLE =
      Pattern.compile("<title[^>]*>(.*?)</title>", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

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
      throw explained(e, uri);
    }
    String body = response.body() == null ? "" : response.body();
    int status = response.statusCode();
    if (status != 200) {
      // Only the gist: an error page's HTML would bury the status and the URL.
      String gist = gist(body);
      String message = "HTTP " + status + (gist.isEmpty() ? "" : ": " + gist);
      // A 5xx may come from a server that is still starting; any other status means a wrong URL.
      throw status >= 500 && status < 600
          ? new IOException(message)
          : new UnusableAnswerException(message);
    }
    if (!looksLikeJson(body)) {
      // Dynomite answers 200 "OK" to any admin path it does not know, so a mistyped path lands
      // here.
      String gist = gist(body);
      String what = body.isBlank()
          ? "an empty body"
          : gist.isEmpty() ? "a page of markup" : "\"" + gist + "\"";
      throw new UnusableAnswerException(
          "HTTP 200 with " + what + ", not a cluster description: the path is"
              + " probably not a cluster_describe endpoint (Dynomite answers OK to any admin path it does not know)."
              + WHERE_IT_IS);
    }
    return ClusterDescription.parse(body, clientPortFromPeerPort);
  }

  /**
   * A failure to get any HTTP answer, with its likely cause: nothing listening (a wrong host or
   * port, or the node is down), no answer in time, or an answer that is not HTTP (a RESP or peer
   * port: an {@link UnusableAnswerException}, since waiting mends no wrong port).
   */
  private IOException explained(IOException e, URI uri) {
    int port = uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    String where = uri.getHost() + ":" + port;
    String type = e.getClass().getSimpleName();
    if (e instanceof HttpConnectTimeoutException) {
      return withCause(
          new IOException(type + ": no connection to " + where + " within "
              + http.connectTimeout().map(d -> d.toMillis() + " ms").orElse("the connect timeout")
              + ": a wrong host, a firewall, or the node is down"),
          e);
    }
    if (e instanceof HttpTimeoutException) {
      return withCause(
          new IOException(type + ": connected to " + where + " but no HTTP answer within "
              + requestTimeout.toMillis()
              + " ms: a port that does not speak HTTP (a peer port?) or a"
              + " hung node." + WHERE_IT_IS),
          e);
    }
    if (e instanceof ConnectException) {
      return withCause(
          new IOException(type + ": nothing is listening at " + where
              + " (connection refused): a wrong host or port, or the node is not running."
              + WHERE_IT_IS),
          e);
    }
    if (notHttp(e)) {
      String said = e instanceof ProtocolException && e.getMessage() != null
          ? "answered " + e.getMessage()
          : "closed the connection without an HTTP answer";
      return withCause(
          new UnusableAnswerException(where + " is not an HTTP port (it " + said
              + "): probably a RESP port (a node's client port, or its Redis) or a peer port."
              + WHERE_IT_IS),
          e);
    }
    return e;
  }

  /**
   * A short text of a body for an error message (at most 80 characters): an HTML page's title, or
   * its text without tags when it has none, else the first line.
   */
  static String gist(String body) {
    String b = body.strip();
    Matcher title = HTML_TITLE.matcher(b);
    String line = title.find()
        ? title.group(1)
        : b.startsWith("<")
            ? b.replaceAll("<[^>]*>", " ")
            : b.lines().findFirst().orElse("");
    line = line.strip().replaceAll("\\s+", " ");
    return line.length() > GIST_LENGTH ? line.substring(0, GIST_LENGTH) + "…" : line;
  }

  /** Whether a body can be a cluster description at all: both shapes are a JSON object or array. */
  static boolean looksLikeJson(String body) {
    String b = body.strip();
    return b.startsWith("{") || b.startsWith("[");
  }

  /** What the JDK's HTTP client says when the other end answered with something that is not HTTP. */
  private static boolean notHttp(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage();
      if (t instanceof ProtocolException
          || t instanceof EOFException
          || m.contains("header parser received no bytes")
          || m.contains("status line")) {
        return true;
      }
    }
    return false;
  }

  private static <T extends IOException> T withCause(T e, IOException cause) {
    e.initCause(cause);
    return e;
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
