package io.dyno.loadgen.target;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.List;

/**
 * A fixed node list: given as {@code host:port:rack:token[:dc]}, comma-separated, or read once
 * from a {@code cluster_describe} URL ({@link DescribeTarget}).
 */
public final class StaticTarget implements Target {
  private final List<HostToken> tokens;
  private final String description;

  public StaticTarget(List<HostToken> tokens) {
    this(tokens, null);
  }

  /** @param description for reports; null lists the nodes */
  StaticTarget(List<HostToken> tokens, String description) {
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("target: the node list is empty");
    }
    this.tokens = List.copyOf(tokens);
    this.description = description != null ? description : "static nodes " + hosts();
  }

  public static StaticTarget parse(String list) {
    List<HostToken> out = new ArrayList<>();
    for (String item : list.split(",")) {
      String s = item.trim();
      if (s.isEmpty()) continue;
      String[] p = s.split(":");
      if (p.length < 4 || p.length > 5) {
        throw new IllegalArgumentException(
            "target node \"" + s + "\": expected host:port:rack:token[:dc]");
      }
      int port;
      long token;
      try {
        port = Integer.parseInt(p[1]);
        token = Long.parseLong(p[3]);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "target node \"" + s + "\": port and token must be numbers");
      }
      Host h = Host.builder(p[0], port)
          .rack(p[2])
          .datacenter(p.length == 5 ? p[4] : "dc1")
          .build();
      out.add(new HostToken(token, h));
    }
    return new StaticTarget(out);
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public List<Host> hosts() {
    return tokens.stream().map(HostToken::host).toList();
  }

  @Override
  public List<HostToken> tokens() {
    return tokens;
  }

  @Override
  public String noServerCountersReason() {
    return "a describe: or nodes: target knows each node's client port only, not its /info port or its Redis "
        + "(--target dynomite starts a cluster whose counters it reads)";
  }

  @Override
  public void close() {}
}
