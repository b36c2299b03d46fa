package io.dyno.core.topology;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.internal.json.Json;
import io.dyno.core.internal.json.JsonException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * A parsed {@code cluster_describe} document, in either of its two shapes:
 * <ul>
 *   <li><b>Dynomite's own</b> ({@code GET :22222/cluster_describe}): an object
 *       {@code {"dcs":[{"name","racks":[{"name","servers":[{"name","host","port","token"}]}]}]}}
 *       whose {@code port} is the node's <em>peer</em> port. The client port is derived from it
 *       by a function, by default {@link #DEFAULT_CLIENT_PORT} ({@code peer + 1}: Dynomite's
 *       samples pair peer 8101 with client 8102).
 *   <li><b>Dynomite-manager's</b> ({@code GET :8080/REST/v1/admin/cluster_describe}): a flat array
 *       of objects whose values are all strings: {@code token, hostname, ip, zone} (the rack),
 *       {@code dc, port} (the client port), {@code secure_port, hashtag}.
 * </ul>
 * Neither shape reports liveness: every node is {@link Host.Status#UP}. Errors name the field and
 * the entry at fault.
 */
public final class ClusterDescription {
  /** Dynomite's samples: peer port 8101, client port 8102. */
  public static final IntUnaryOperator DEFAULT_CLIENT_PORT = peerPort -> peerPort + 1;

  /** Which document shape was read. */
  public enum Shape {
    /** Dynomite's own {@code /cluster_describe}: an object with {@code "dcs"}, nested by rack. */
    DYNOMITE,
    /** Dynomite-manager's: a flat array of per-node entries (with client port and hash tag). */
    DYNOMITE_MANAGER
  }

  private final List<HostToken> hostTokens;
  private final String hashtag;
  private final Shape shape;

  private ClusterDescription(List<HostToken> hostTokens, String hashtag, Shape shape) {
    this.hostTokens = List.copyOf(hostTokens);
    this.hashtag = hashtag;
    this.shape = shape;
  }

  /**
   * Parses either shape, with the default peer → client port rule ({@link #DEFAULT_CLIENT_PORT}).
   *
   * @param json the document
   * @return the parsed description; never empty
   * @throws IllegalArgumentException naming the entry and field at fault, when the document is not
   *     valid JSON of either shape or lists no node
   */
  public static ClusterDescription parse(String json) {
    return parse(json, DEFAULT_CLIENT_PORT);
  }

  /**
   * Parses either shape. {@code clientPortFromPeerPort} maps Dynomite's peer port to the client
   * port (unused for the Dynomite-manager shape, which gives the client port).
   *
   * @param json the document
   * @param clientPortFromPeerPort maps a node's peer port to its client port
   * @return the parsed description; never empty
   * @throws IllegalArgumentException naming the entry and field at fault, when the document is not
   *     valid JSON of either shape or lists no node
   */
  public static ClusterDescription parse(String json, IntUnaryOperator clientPortFromPeerPort) {
    Object doc = Json.parse(json);
    ClusterDescription d;
    if (doc instanceof Map) {
      d = parseDynomite((Map<?, ?>) doc, clientPortFromPeerPort);
    } else if (doc instanceof List) {
      d = parseManager((List<?>) doc);
    } else {
      throw new JsonException(
          "cluster_describe must be an object with \"dcs\" (Dynomite) or an array"
              + " (Dynomite-manager), but was " + Json.typeName(doc));
    }
    if (d.hostTokens.isEmpty()) {
      throw new JsonException("cluster_describe lists no nodes");
    }
    return d;
  }

  /** {@return every node with its token, in document order} Unmodifiable. */
  public List<HostToken> hostTokens() {
    return hostTokens;
  }

  /** {@return the hash tag the cluster reports (Dynomite-manager shape only), or null} */
  public String hashtag() {
    return hashtag;
  }

  /** {@return which document shape was read} */
  public Shape shape() {
    return shape;
  }

  private static ClusterDescription parseDynomite(Map<?, ?> doc, IntUnaryOperator clientPort) {
    List<HostToken> out = new ArrayList<>();
    List<?> dcs = list(doc, "dcs", "cluster_describe");
    for (int d = 0; d < dcs.size(); d++) {
      String dcWhere = "dcs[" + d + "]";
      Map<?, ?> dc = object(dcs.get(d), dcWhere);
      String dcName = text(dc, "name", dcWhere);
      List<?> racks = list(dc, "racks", dcWhere);
      for (int r = 0; r < racks.size(); r++) {
        String rackWhere = dcWhere + ".racks[" + r + "]";
        Map<?, ?> rack = object(racks.get(r), rackWhere);
        String rackName = text(rack, "name", rackWhere);
        List<?> servers = list(rack, "servers", rackWhere);
        for (int s = 0; s < servers.size(); s++) {
          String where = rackWhere + ".servers[" + s + "]";
          Map<?, ?> server = object(servers.get(s), where);
          String address = server.containsKey("host")
              ? text(server, "host", where)
              : text(server, "name", where);
          int peerPort = port(server, "port", where);
          int port = clientPort.applyAsInt(peerPort);
          if (port < 1 || port > 65535) {
            throw new JsonException("cluster_describe " + where + " (" + address + "): client port "
                + port + " derived from peer port " + peerPort + " is not 1..65535");
          }
          Host.Builder b = Host.builder(address, port).rack(rackName).datacenter(dcName);
          if (looksLikeIp(address)) b.ipAddress(address);
          out.add(token(server, "token", where, b.build()));
        }
      }
    }
    return new ClusterDescription(out, null, Shape.DYNOMITE);
  }

  private static ClusterDescription parseManager(List<?> doc) {
    List<HostToken> out = new ArrayList<>();
    String hashtag = null;
    for (int i = 0; i < doc.size(); i++) {
      String where = "[" + i + "]";
      Map<?, ?> node = object(doc.get(i), where);
      String ip = optionalText(node, "ip", where);
      String hostname = optionalText(node, "hostname", where);
      if (ip == null && hostname == null) {
        throw new JsonException("cluster_describe " + where + ": needs \"ip\" or \"hostname\"");
      }
      where = where + " (" + (ip != null ? ip : hostname) + ")";
      Host.Builder b = Host.builder(hostname != null ? hostname : ip, port(node, "port", where))
          .rack(text(node, "zone", where))
          .datacenter(text(node, "dc", where));
      if (ip != null) b.ipAddress(ip);
      if (optionalText(node, "secure_port", where) != null)
        b.securePort(port(node, "secure_port", where));
      out.add(token(node, "token", where, b.build()));
      String tag = optionalText(node, "hashtag", where);
      if (tag != null) {
        if (hashtag != null && !hashtag.equals(tag)) {
          throw new JsonException("cluster_describe " + where + ": hashtag \"" + tag
              + "\" differs from \"" + hashtag + "\" of an earlier node");
        }
        hashtag = tag;
      }
    }
    return new ClusterDescription(out, hashtag, Shape.DYNOMITE_MANAGER);
  }

  private static boolean looksLikeIp(String s) {
    return s.matches("\\d{1,3}(\\.\\d{1,3}){3}") || s.contains(":");
  }

  private static Map<?, ?> object(Object v, String where) {
    if (!(v instanceof Map)) {
      throw new JsonException(
          "cluster_describe " + where + ": expected an object but found " + Json.typeName(v));
    }
    return (Map<?, ?>) v;
  }

  private static List<?> list(Map<?, ?> m, String field, String where) {
    Object v = m.get(field);
    if (!(v instanceof List)) {
      throw new JsonException(
          "cluster_describe " + where + ": \"" + field + "\" must be an array but "
              + (m.containsKey(field) ? "is " + Json.typeName(v) : "is missing"));
    }
    return (List<?>) v;
  }

  private static String text(Map<?, ?> m, String field, String where) {
    String s = optionalText(m, field, where);
    if (s == null) {
      throw new JsonException(
          "cluster_describe " + where + ": \"" + field + "\" is missing or empty");
    }
    return s;
  }

  /** A string or number field as text; null when absent, null or blank. */
  private static String optionalText(Map<?, ?> m, String field, String where) {
    Object v = m.get(field);
    if (v == null) return null;
    if (v instanceof String) return ((String) v).isBlank() ? null : ((String) v).trim();
    if (v instanceof Long) return v.toString();
    throw new JsonException("cluster_describe " + where + ": \"" + field
        + "\" must be a string or an integer but is " + Json.typeName(v) + " " + v);
  }

  private static long number(Map<?, ?> m, String field, String where) {
    String s = text(m, field, where);
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new JsonException("cluster_describe " + where + ": \"" + field
          + "\" must be an integer but is \"" + s + "\"");
    }
  }

  private static int port(Map<?, ?> m, String field, String where) {
    long p = number(m, field, where);
    if (p < 1 || p > 65535) {
      throw new JsonException(
          "cluster_describe " + where + ": \"" + field + "\" must be a port 1..65535 but is " + p);
    }
    return (int) p;
  }

  private static HostToken token(Map<?, ?> m, String field, String where, Host host) {
    long t = number(m, field, where);
    if (t < 0 || t > 0xffffffffL) {
      throw new JsonException("cluster_describe " + where + ": \"" + field
          + "\" must be an unsigned 32-bit integer but is " + t);
    }
    return new HostToken(t, host);
  }

  @Override
  public String toString() {
    return "ClusterDescription{" + shape + (hashtag != null ? ", hashtag=" + hashtag : "") + ", "
        + hostTokens + "}";
  }
}
