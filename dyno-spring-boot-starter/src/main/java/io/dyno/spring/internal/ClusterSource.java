package io.dyno.spring.internal;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import io.dyno.core.topology.StaticHostSupplier;
import io.dyno.core.topology.StaticTokenMapSupplier;
import io.dyno.spring.DynoProperties;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the auto-configured client learns its nodes and tokens, made from {@code dyno.cluster-describe-url}
 * or {@code dyno.hosts}. A bean of its own so that the HTTP threads of a cluster_describe reader are
 * shut when the context closes (the client does not own its suppliers).
 */
public final class ClusterSource implements AutoCloseable {
  private final HostSupplier hosts;
  private final TokenMapSupplier tokens;
  private final AutoCloseable owned;

  private ClusterSource(HostSupplier hosts, TokenMapSupplier tokens, AutoCloseable owned) {
    this.hosts = hosts;
    this.tokens = tokens;
    this.owned = owned;
  }

  /** Reads exactly one of {@code dyno.cluster-describe-url} and {@code dyno.hosts}; anything else is refused by name. */
  public static ClusterSource from(DynoProperties p) {
    boolean describe = p.clusterDescribeUrl() != null && !p.clusterDescribeUrl().isEmpty();
    boolean fixed = p.hosts() != null && !p.hosts().isEmpty();
    if (describe == fixed) {
      throw new InvalidPropertyException(
          describe ? "dyno.cluster-describe-url or dyno.hosts" : "dyno.cluster-describe-url",
          describe
              ? "dyno.cluster-describe-url and dyno.hosts are both set: set one of them"
              : "no cluster: set dyno.cluster-describe-url (e.g. http://<node>:22222/cluster_describe)"
                  + " or dyno.hosts (host:port:rack:datacenter:token, one per node)");
    }
    if (p.clientPort() != null && !describe) {
      throw new InvalidPropertyException(
          "dyno.client-port",
          "dyno.client-port applies to dyno.cluster-describe-url only;"
              + " dyno.hosts entries carry their own port");
    }
    return describe ? describe(p) : fixed(p.hosts());
  }

  private static ClusterSource describe(DynoProperties p) {
    ClusterDescribeTokenMapSupplier.Builder b = ClusterDescribeTokenMapSupplier.builder();
    for (int i = 0; i < p.clusterDescribeUrl().size(); i++) {
      String url = p.clusterDescribeUrl().get(i);
      try {
        b.endpoint(url);
      } catch (IllegalArgumentException e) {
        throw new InvalidPropertyException(
            "dyno.cluster-describe-url[" + i + "]",
            "dyno.cluster-describe-url[" + i + "]=" + url + ": " + e.getMessage(),
            e);
      }
    }
    if (p.clientPort() != null) {
      int port = p.clientPort();
      if (port < 1 || port > 65535) {
        throw new InvalidPropertyException(
            "dyno.client-port", "dyno.client-port must be within 1..65535, was " + port);
      }
      b.clientPortFromPeerPort(peer -> port);
    }
    ClusterDescribeTokenMapSupplier supplier = b.build();
    // One source of both: it is the host source too (the client accepts it once).
    return new ClusterSource(null, supplier, supplier);
  }

  private static ClusterSource fixed(List<String> entries) {
    List<Host> hosts = new ArrayList<>(entries.size());
    List<HostToken> tokens = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      HostToken t = parseHost(i, entries.get(i));
      hosts.add(t.host());
      tokens.add(t);
    }
    return new ClusterSource(
        new StaticHostSupplier(hosts), new StaticTokenMapSupplier(tokens), () -> {});
  }

  /** {@code host:port:rack:datacenter:token[:securePort]}; an error names the entry and the form. */
  static HostToken parseHost(int index, String entry) {
    String[] f = entry == null ? new String[0] : entry.trim().split(":", -1);
    String property = "dyno.hosts[" + index + "]";
    String where = property + "=" + entry;
    if (f.length != 5 && f.length != 6) {
      throw new InvalidPropertyException(
          property, where + ": expected host:port:rack:datacenter:token[:securePort]");
    }
    for (String field : f) {
      if (field.isBlank()) {
        throw new InvalidPropertyException(
            property, where + ": a field is empty (host:port:rack:datacenter:token[:securePort])");
      }
    }
    Host.Builder host =
        Host.builder(f[0], port(property, where, "port", f[1])).rack(f[2]).datacenter(f[3]);
    if (f.length == 6) {
      host.securePort(port(property, where, "securePort", f[5]));
    }
    return new HostToken(number(property, where, "token", f[4], 0, 0xffffffffL), host.build());
  }

  private static int port(String property, String where, String field, String text) {
    return (int) number(property, where, field, text, 1, 65535);
  }

  private static long number(
      String property, String where, String field, String text, long min, long max) {
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new InvalidPropertyException(
          property, where + ": " + field + " is not a number: " + text);
    }
    if (v < min || v > max) {
      throw new InvalidPropertyException(
          property, where + ": " + field + " must be within " + min + ".." + max + ", was " + v);
    }
    return v;
  }

  /** The host source, or null when the token source is both (cluster_describe). */
  public HostSupplier hostSupplier() {
    return hosts;
  }

  public TokenMapSupplier tokenMapSupplier() {
    return tokens;
  }

  /** Shuts what this source started (cluster_describe's HTTP threads). Idempotent. */
  @Override
  public void close() throws Exception {
    owned.close();
  }

  @Override
  public String toString() {
    return hosts == null ? String.valueOf(tokens) : hosts + " and " + tokens;
  }
}
