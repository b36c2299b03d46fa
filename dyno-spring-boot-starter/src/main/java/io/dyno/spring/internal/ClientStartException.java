package io.dyno.spring.internal;

import io.dyno.spring.DynoProperties;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The auto-configured client did not start: the builder's refusal, told in the {@code dyno.*}
 * properties an application sets rather than the builder's method names, with what to check.
 * {@link DynoStartFailureAnalyzer} prints it as the start's summary.
 */
public final class ClientStartException extends RuntimeException {
  /** The builder's words for a setting, and the property that sets it (most specific first). */
  private static final List<String[]> BUILDER_TO_PROPERTY = List.of(
      new String[] {"call allowUnknownLocalRack()", "set dyno.allow-unknown-local-rack=true"},
      new String[] {"allowUnknownLocalRack()", "dyno.allow-unknown-local-rack=true"},
      new String[] {"localRack(...)", "dyno.local-rack"},
      new String[] {"localDatacenter(...)", "dyno.local-datacenter"},
      new String[] {"hashtag(...)", "dyno.hashtag"},
      new String[] {"localRack", "dyno.local-rack"},
      new String[] {"localDatacenter", "dyno.local-datacenter"},
      new String[] {"failOnStartupIfNoHosts", "dyno.fail-on-startup-if-no-hosts"},
      new String[] {"startupTimeout", "dyno.startup-timeout"});

  private static final Pattern PROPERTY = Pattern.compile("dyno\\.[a-z][a-z.-]*[a-z]");

  private final String action;

  private ClientStartException(String description, String action, RuntimeException cause) {
    super(description, cause);
    this.action = action;
  }

  /**
   * The start failure {@code e} of a client built from {@code p}: a setting the cluster refuses (an
   * {@link IllegalArgumentException}: fix the properties it names) or a cluster that could not be
   * read or reached (check where the nodes come from).
   */
  public static ClientStartException of(RuntimeException e, DynoProperties p) {
    String description = inProperties(String.valueOf(e.getMessage()));
    if (e instanceof IllegalArgumentException) {
      Set<String> named = new LinkedHashSet<>();
      Matcher m = PROPERTY.matcher(description);
      while (m.find()) {
        named.add(m.group());
      }
      String action = named.isEmpty()
          ? "Fix the dyno.* settings named above (docs/spring-boot.md lists every property)."
          : "Fix " + String.join(" or ", named) + " in the application's configuration.";
      return new ClientStartException(description, action, e);
    }
    return new ClientStartException(description, checkTheSource(p), e);
  }

  /** What to check, given where the nodes came from. */
  private static String checkTheSource(DynoProperties p) {
    if (p.clusterDescribeUrl() != null && !p.clusterDescribeUrl().isEmpty()) {
      return "Check dyno.cluster-describe-url=" + String.join(",", p.clusterDescribeUrl())
          + ": each URL is a Dynomite node's admin port (22222 unless the node's stats_listen says"
          + " otherwise) or Dynomite-manager's /REST/v1/admin/cluster_describe; the client connects"
          + " to each node's peer port + 1"
          + (p.clientPort() != null
              ? ", here dyno.client-port=" + p.clientPort()
              : " unless dyno.client-port names the client port")
          + ".";
    }
    return "Check dyno.hosts: each entry is host:port:rack:datacenter:token with the node's client"
        + " port (Dynomite's listen port, 8102 by default).";
  }

  /** {@code message} with the builder's setting names replaced by the properties that set them. */
  static String inProperties(String message) {
    String out = message;
    for (String[] pair : BUILDER_TO_PROPERTY) {
      out = out.replaceAll(
          "(?<![\\w.-])" + Pattern.quote(pair[0]) + "(?![\\w])", Matcher.quoteReplacement(pair[1]));
    }
    return out;
  }

  /** What the application's developer does about it. */
  public String action() {
    return action;
  }
}
