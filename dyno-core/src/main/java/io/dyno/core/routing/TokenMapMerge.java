package io.dyno.core.routing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Joins the token map to the host source and refuses what cannot be served.
 *
 * <p>Each token-map node is matched to a host-source node by {@code address:port}, hostname or IP
 * with the same port; the host source's view (status, rack, password) is what gets routed to. A
 * token map that names unknown nodes, gives a node two tokens, puts two nodes of one rack on one
 * token, or gives the racks of one datacenter different token sets would route keys to nodes that
 * do not hold them, so it fails with a {@link TopologyException} naming the hosts involved.
 */
final class TokenMapMerge {

  /** The merged nodes ordered by datacenter, rack, token; and what is only worth a warning. */
  record Result(List<HostToken> hostTokens, List<String> warnings) {}

  private TokenMapMerge() {}

  /**
   * @param hosts the host source's nodes, or null to route to the token map's own hosts
   * @param tokens the token map
   */
  static Result merge(Collection<Host> hosts, Collection<HostToken> tokens) {
    Collection<Host> source = hosts;
    if (source == null) {
      LinkedHashMap<Host, Host> fromTokens = new LinkedHashMap<>();
      for (HostToken ht : tokens) {
        fromTokens.putIfAbsent(ht.host(), ht.host());
      }
      source = fromTokens.keySet();
    }
    Map<String, Host> byKey = new HashMap<>();
    for (Host h : source) {
      for (String k : keys(h)) {
        byKey.putIfAbsent(k, h);
      }
    }
    Map<Host, HostToken> merged = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    List<String> twoTokens = new ArrayList<>();
    for (HostToken ht : tokens) {
      Host match = null;
      for (String k : keys(ht.host())) {
        match = byKey.get(k);
        if (match != null) {
          break;
        }
      }
      if (match == null) {
        unknown.add(ht.host() + "@" + ht.token());
        continue;
      }
      HostToken prior = merged.putIfAbsent(match, new HostToken(ht.token(), match));
      if (prior != null && prior.token() != ht.token()) {
        twoTokens.add(match + " has tokens " + prior.token() + " and " + ht.token());
      }
    }
    if (!unknown.isEmpty()) {
      throw new TopologyException("token map lists " + unknown.size()
          + " node(s) the host source does not know: " + unknown + "; the host source knows "
          + source);
    }
    if (!twoTokens.isEmpty()) {
      throw new TopologyException(
          "a node may own only one token, but " + String.join("; ", twoTokens));
    }
    if (merged.isEmpty()) {
      throw new TopologyException("no nodes to route to: the host source gave " + source
          + " and the token map gave " + tokens);
    }
    List<HostToken> sorted = new ArrayList<>(merged.values());
    sorted.sort(Comparator.comparing((HostToken ht) -> ht.host().datacenter())
        .thenComparing(ht -> ht.host().rack())
        .thenComparingLong(HostToken::token));
    validateRacks(sorted);
    List<String> warnings = new ArrayList<>();
    List<Host> untokened =
        source.stream().filter(h -> !merged.containsKey(h)).collect(Collectors.toList());
    if (!untokened.isEmpty()) {
      warnings.add("hosts without a token are not routable: " + untokened);
    }
    return new Result(List.copyOf(sorted), List.copyOf(warnings));
  }

  private static List<String> keys(Host h) {
    List<String> k = new ArrayList<>(3);
    k.add(h.address() + ":" + h.port());
    k.add(h.hostname() + ":" + h.port());
    if (h.ipAddress() != null) {
      k.add(h.ipAddress() + ":" + h.port());
    }
    return k;
  }

  /** Same token twice in a rack, or racks of one datacenter with different token sets: refused. */
  private static void validateRacks(List<HostToken> sorted) {
    Map<String, Map<String, List<HostToken>>> dcs = new TreeMap<>();
    for (HostToken ht : sorted) {
      dcs.computeIfAbsent(ht.host().datacenter(), k -> new TreeMap<>())
          .computeIfAbsent(ht.host().rack(), k -> new ArrayList<>())
          .add(ht);
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, Map<String, List<HostToken>>> dc : dcs.entrySet()) {
      for (Map.Entry<String, List<HostToken>> rack : dc.getValue().entrySet()) {
        List<HostToken> ring = rack.getValue();
        for (int i = 1; i < ring.size(); i++) {
          if (ring.get(i).token() == ring.get(i - 1).token()) {
            problems.add("rack " + dc.getKey() + "/" + rack.getKey() + ": "
                + ring.get(i - 1).host() + " and " + ring.get(i).host() + " have the same token "
                + ring.get(i).token());
          }
        }
      }
      String mismatch = tokenSetMismatch(dc.getKey(), dc.getValue());
      if (mismatch != null) {
        problems.add(mismatch);
      }
    }
    if (!problems.isEmpty()) {
      throw new TopologyException("topology refused: " + String.join("; ", problems));
    }
  }

  /** Each rack of a datacenter is a full copy of the data, so all must hold the same tokens. */
  private static String tokenSetMismatch(String dc, Map<String, List<HostToken>> racks) {
    Map<String, List<Long>> tokenSets = new TreeMap<>();
    racks.forEach((rack, ring) -> tokenSets.put(
        rack, ring.stream().map(HostToken::token).distinct().collect(Collectors.toList())));
    if (tokenSets.values().stream().distinct().count() <= 1) {
      return null;
    }
    StringBuilder sb = new StringBuilder("racks of datacenter " + dc
        + " must hold the same tokens (each rack is a full copy), but:");
    racks.forEach((rack, ring) -> sb.append(" rack ")
        .append(rack)
        .append(" has ")
        .append(
            ring.stream().map(ht -> ht.host().id() + "@" + ht.token()).collect(Collectors.toList()))
        .append(';'));
    return sb.substring(0, sb.length() - 1);
  }
}
