package io.dyno.companion.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ring as the admin port describes it: Dynomite's {@code /cluster_describe} and
 * Dynomite-manager's {@code /REST/v1/admin/cluster_describe}, for clients that read either.
 */
final class ClusterDescriptions {
  private final NodeServer node;

  ClusterDescriptions(NodeServer node) {
    this.node = node;
  }

  /**
   * Dynomite's shape byte for byte: dcs > racks > servers, port = peer port, token a number, and a
   * line break after each number where Dynomite's JSON writer puts one.
   */
  String dynomite() {
    Map<String, Map<String, List<RingEntry>>> dcs = new LinkedHashMap<>();
    for (RingEntry e : sorted()) {
      dcs.computeIfAbsent(e.datacenter(), k -> new LinkedHashMap<>())
          .computeIfAbsent(e.rack(), k -> new ArrayList<>())
          .add(e);
    }
    StringBuilder sb = new StringBuilder("{\"dcs\": [");
    boolean firstDc = true;
    for (var dc : dcs.entrySet()) {
      sb.append(firstDc ? "" : ",")
          .append("{\"name\":")
          .append(JsonText.quote(dc.getKey()))
          .append(",\"racks\": [");
      firstDc = false;
      boolean firstRack = true;
      for (var rack : dc.getValue().entrySet()) {
        sb.append(firstRack ? "" : ",")
            .append("{\"name\":")
            .append(JsonText.quote(rack.getKey()))
            .append(",\"servers\": [");
        firstRack = false;
        boolean firstServer = true;
        for (RingEntry e : rack.getValue()) {
          sb.append(firstServer ? "" : ",")
              .append("{\"name\":")
              .append(JsonText.quote(e.host()))
              .append(",\"host\":")
              .append(JsonText.quote(e.host()))
              .append(",\"port\":")
              .append(e.peerPort())
              .append(",\n\"token\":")
              .append(e.token())
              .append("\n}");
          firstServer = false;
        }
        sb.append("]}");
      }
      sb.append("]}");
    }
    return sb.append("]}\n").toString();
  }

  /** Dynomite-manager's flat array, all values strings; zone = rack, port = client port. */
  String manager() {
    StringBuilder sb = new StringBuilder("[");
    boolean first = true;
    String tag = node.config().hashtag() == null ? "" : node.config().hashtag();
    for (RingEntry e : sorted()) {
      sb.append(first ? "" : ",")
          .append("{\"token\":")
          .append(JsonText.quote(Long.toString(e.token())))
          .append(",\"hostname\":")
          .append(JsonText.quote(e.host()))
          .append(",\"ip\":")
          .append(JsonText.quote(e.host()))
          .append(",\"zone\":")
          .append(JsonText.quote(e.rack()))
          .append(",\"rack\":")
          .append(JsonText.quote(e.rack()))
          .append(",\"dc\":")
          .append(JsonText.quote(e.datacenter()))
          .append(",\"port\":")
          .append(JsonText.quote(Integer.toString(e.clientPort())))
          .append(",\"secure_port\":")
          .append(JsonText.quote(Integer.toString(e.clientPort())))
          .append(",\"hashtag\":")
          .append(JsonText.quote(tag))
          .append('}');
      first = false;
    }
    return sb.append(']').toString();
  }

  /**
   * Datacenter, rack, then token order, except that Dynomite lists its own datacenter first and
   * itself first in its own rack.
   */
  private List<RingEntry> sorted() {
    List<RingEntry> l = node.ringEntries();
    RingEntry self = node.selfEntry();
    l.sort((a, b) -> {
      int c = Boolean.compare(
          !a.datacenter().equals(self.datacenter()), !b.datacenter().equals(self.datacenter()));
      if (c == 0) c = a.datacenter().compareTo(b.datacenter());
      if (c == 0) c = a.rack().compareTo(b.rack());
      if (c == 0)
        c = Boolean.compare(!a.peerId().equals(self.peerId()), !b.peerId().equals(self.peerId()));
      if (c == 0) c = Long.compare(a.token(), b.token());
      return c;
    });
    return l;
  }
}
