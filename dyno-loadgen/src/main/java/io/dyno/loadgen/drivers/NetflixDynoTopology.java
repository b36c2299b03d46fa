package io.dyno.loadgen.drivers;

import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster as Netflix Dyno must be told it: Dynomite-manager's {@code cluster_describe} entries
 * (every value a string), with the two things Netflix Dyno 1.7.2 needs beyond the token map.
 *
 * <ul>
 *   <li>Its datacenter's name must be part of every rack's name (AWS style: {@code us-east-1} and
 *       {@code us-east-1a}): it keeps the hosts whose rack contains the datacenter name and fails at
 *       start-up otherwise. The datacenter given is the racks' longest common prefix ({@code rack}
 *       for {@code rack1..rack3}).
 *   <li>It tells a rack's nodes apart by host name, so two nodes of one rack on one address get two
 *       names: the address, then {@code localhost} for the loopback address. It connects to the
 *       {@code ip} field.
 * </ul>
 */
final class NetflixDynoTopology {
  private static final String LOOPBACK = "127.0.0.1";

  private final List<Map<String, String>> nodes;
  private final String datacenter;

  private NetflixDynoTopology(List<Map<String, String>> nodes, String datacenter) {
    this.nodes = nodes;
    this.datacenter = datacenter;
  }

  /** @throws IllegalArgumentException naming the racks or the nodes Netflix Dyno cannot be given */
  static NetflixDynoTopology of(List<HostToken> tokens) {
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("driver netflix-dyno: the target has no nodes");
    }
    List<String> racks = tokens.stream().map(t -> t.host().rack()).distinct().toList();
    String dc = commonPrefix(racks);
    if (dc.isEmpty()) {
      throw new IllegalArgumentException("driver netflix-dyno: racks " + racks
          + " share no common prefix, and Netflix Dyno needs its datacenter's name inside every"
          + " rack's name (as us-east-1 in us-east-1a); name the racks e.g. rack1, rack2, rack3");
    }
    Map<String, Integer> onAddress = new HashMap<>();
    List<Map<String, String>> out = new ArrayList<>();
    for (HostToken t : tokens) {
      String address = t.host().address();
      int nth = onAddress.merge(t.host().rack() + " " + address, 1, Integer::sum) - 1;
      String name;
      if (nth == 0) {
        name = address;
      } else if (nth == 1 && address.equals(LOOPBACK)) {
        name = "localhost";
      } else {
        throw new IllegalArgumentException(
            "driver netflix-dyno: rack " + t.host().rack()
                + " has more nodes on " + address + " than names for that address ("
                + t.host().id()
                + "); Netflix Dyno tells a rack's nodes apart by host name, and this driver knows "
                + (address.equals(LOOPBACK) ? "two (127.0.0.1, localhost)" : "one (the address)"));
      }
      Map<String, String> node = new LinkedHashMap<>();
      node.put("token", Long.toString(t.token()));
      node.put("hostname", name);
      node.put("ip", address);
      node.put("port", Integer.toString(t.host().port()));
      node.put("zone", t.host().rack());
      node.put("dc", dc);
      out.add(node);
    }
    return new NetflixDynoTopology(List.copyOf(out), dc);
  }

  /** One entry per node: token, hostname, ip, port, zone (the rack) and dc. */
  List<Map<String, String>> nodes() {
    return nodes;
  }

  String datacenter() {
    return datacenter;
  }

  private static String commonPrefix(List<String> names) {
    String p = names.get(0);
    for (String n : names) {
      int i = 0;
      while (i < p.length() && i < n.length() && p.charAt(i) == n.charAt(i)) i++;
      p = p.substring(0, i);
    }
    return p;
  }
}
