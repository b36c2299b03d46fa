package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The admin HTTP port: Dynomite's stats endpoints, the Dynomite-manager cluster_describe, and fault
 * controls under {@code /fault/...}. Answers then closes the connection.
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Set<String> STATES = Set.of("NORMAL", "STANDBY", "WRITES_ONLY", "RESUMING", "JOINING");

  private final NodeServer node;

  AdminHandler(NodeServer node) {
    this.node = node;
  }

  /** Faults such as stop/start wait for sockets to close and bind: never on an event loop. */
  private static final java.util.concurrent.ExecutorService WORKER = java.util.concurrent.Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "companion-admin");
    t.setDaemon(true);
    return t;
  });

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
    FullHttpRequest copy = req.retainedDuplicate();
    WORKER.execute(() -> {
      try {
        handle(ctx, copy);
      } finally {
        copy.release();
      }
    });
  }

  private void handle(ChannelHandlerContext ctx, FullHttpRequest req) {
    QueryStringDecoder q = new QueryStringDecoder(req.uri());
    String path = q.path();
    String body;
    String type = "text/plain; charset=utf-8";
    HttpResponseStatus status = HttpResponseStatus.OK;
    try {
      if (path.equals("/cluster_describe")) {
        body = clusterDescribe();
        type = "application/json";
      } else if (path.equals("/REST/v1/admin/cluster_describe")) {
        body = managerClusterDescribe();
        type = "application/json";
      } else if (path.equals("/info") || path.equals("/")) {
        body = info();
        type = "application/json";
      } else if (path.equals("/ping")) {
        body = "OK";
      } else if (path.equals("/get_consistency")) {
        body = "Read Consistency: " + node.readLevel() + "\nWrite Consistency: " + node.writeLevel();
      } else if (path.startsWith("/set_consistency/")) {
        body = setConsistency(path.substring("/set_consistency/".length()));
      } else if (path.equals("/state/get_state")) {
        body = "State: " + node.state();
      } else if (path.startsWith("/state/")) {
        String s = path.substring("/state/".length()).toUpperCase(Locale.ROOT);
        if (!STATES.contains(s)) {
          throw new IllegalArgumentException("unknown state \"" + s + "\"; expected one of " + STATES);
        }
        node.setState(s);
        body = "OK";
      } else if (path.startsWith("/fault/") || path.equals("/stats/reset")) {
        body = fault(path, q, req);
      } else {
        status = HttpResponseStatus.NOT_FOUND;
        body = "no such endpoint: " + path + "\n" + usage();
      }
    } catch (IllegalArgumentException e) {
      status = HttpResponseStatus.BAD_REQUEST;
      body = e.getMessage();
    }
    FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    resp.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    resp.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, resp.content().readableBytes());
    resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
  }

  private String setConsistency(String rest) {
    String[] p = rest.split("/");
    if (p.length != 2 || !(p[0].equalsIgnoreCase("read") || p[0].equalsIgnoreCase("write"))) {
      throw new IllegalArgumentException("use /set_consistency/<read|write>/<dc_one|dc_quorum|dc_safe_quorum>, not /set_consistency/" + rest);
    }
    ConsistencyLevel l = ConsistencyLevel.parse(p[1]);
    node.setConsistency(p[0].equalsIgnoreCase("read"), l);
    return "OK";
  }

  private String fault(String path, QueryStringDecoder q, FullHttpRequest req) {
    String[] p = path.substring(1).split("/", 3);
    String what = p.length > 1 ? p[1] : "";
    String arg = p.length > 2 ? QueryStringDecoder.decodeComponent(p[2]) : null;
    switch (path.equals("/stats/reset") ? "reset_stats" : what) {
      case "stop" -> node.stop();
      case "start" -> node.start();
      case "hang" -> node.faults().hang(true);
      case "unhang" -> node.faults().hang(false);
      case "delay" -> {
        try {
          node.faults().delay(Duration.ofMillis(Long.parseLong(arg)));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("use /fault/delay/<milliseconds>, not " + path);
        }
      }
      case "error" -> {
        String text = arg;
        if (text == null || text.isEmpty()) {
          text = req.content().toString(StandardCharsets.UTF_8).trim();
        }
        if (text.isEmpty()) {
          throw new IllegalArgumentException("use /fault/error/<url-encoded error text> (or POST the text)");
        }
        node.faults().failWith(text);
      }
      case "cut_peers" -> node.cutPeerLinks();
      case "restore_peers" -> node.restorePeerLinks();
      case "backend_down" -> node.backendDown();
      case "backend_up" -> node.backendUp();
      case "clear" -> {
        node.faults().clear();
        node.restorePeerLinks();
        node.backendUp();
      }
      case "reset_stats" -> node.resetStats();
      case "state" -> { }
      default -> throw new IllegalArgumentException("unknown fault endpoint " + path + "\n" + usage());
    }
    return faultState();
  }

  private String faultState() {
    return "{\"running\":" + node.isRunning() + ",\"peers_cut\":" + node.peersCut() + ",\"backend_down\":"
        + node.backendIsDown() + ",\"faults\":" + node.faults() + "}";
  }

  private static String usage() {
    return "endpoints: /cluster_describe /REST/v1/admin/cluster_describe /info /ping /get_consistency "
        + "/set_consistency/<read|write>/<level> /state/get_state /state/<normal|standby|writes_only> "
        + "/fault/stop /fault/start /fault/hang /fault/unhang /fault/delay/<ms> /fault/error/<text> "
        + "/fault/cut_peers /fault/restore_peers /fault/backend_down /fault/backend_up /fault/clear /fault/state "
        + "/stats/reset";
  }

  /** Dynomite's shape: dcs > racks > servers, port = peer port, token a number; line breaks as the real one. */
  private String clusterDescribe() {
    Map<String, Map<String, List<RingEntry>>> dcs = new LinkedHashMap<>();
    for (RingEntry e : sorted()) {
      dcs.computeIfAbsent(e.datacenter(), k -> new LinkedHashMap<>()).computeIfAbsent(e.rack(), k -> new ArrayList<>()).add(e);
    }
    StringBuilder sb = new StringBuilder("{\"dcs\": [");
    boolean firstDc = true;
    for (var dc : dcs.entrySet()) {
      sb.append(firstDc ? "" : ",").append("{\"name\":").append(json(dc.getKey())).append(",\"racks\": [");
      firstDc = false;
      boolean firstRack = true;
      for (var rack : dc.getValue().entrySet()) {
        sb.append(firstRack ? "" : ",").append("\n{\"name\":").append(json(rack.getKey())).append(",\"servers\": [");
        firstRack = false;
        boolean firstServer = true;
        for (RingEntry e : rack.getValue()) {
          sb.append(firstServer ? "" : ",").append("\n{\"name\":").append(json(e.host())).append(",\"host\":")
              .append(json(e.host())).append(",\"port\":").append(e.peerPort()).append(",\"token\":").append(e.token())
              .append('}');
          firstServer = false;
        }
        sb.append("]}");
      }
      sb.append("]}");
    }
    return sb.append("]}\n").toString();
  }

  /** Dynomite-manager's flat array, all values strings; zone = rack, port = client port. */
  private String managerClusterDescribe() {
    StringBuilder sb = new StringBuilder("[");
    boolean first = true;
    String tag = node.config().hashtag() == null ? "" : node.config().hashtag();
    for (RingEntry e : sorted()) {
      sb.append(first ? "" : ",").append("{\"token\":").append(json(Long.toString(e.token())))
          .append(",\"hostname\":").append(json(e.host())).append(",\"ip\":").append(json(e.host()))
          .append(",\"zone\":").append(json(e.rack())).append(",\"rack\":").append(json(e.rack()))
          .append(",\"dc\":").append(json(e.datacenter())).append(",\"port\":").append(json(Integer.toString(e.clientPort())))
          .append(",\"secure_port\":").append(json(Integer.toString(e.clientPort()))).append(",\"hashtag\":").append(json(tag))
          .append('}');
      first = false;
    }
    return sb.append(']').toString();
  }

  private List<RingEntry> sorted() {
    List<RingEntry> l = node.ringEntries();
    l.sort((a, b) -> {
      int c = a.datacenter().compareTo(b.datacenter());
      if (c == 0) c = a.rack().compareTo(b.rack());
      if (c == 0) c = Long.compare(a.token(), b.token());
      return c;
    });
    return l;
  }

  private String info() {
    var s = node.stats();
    NodeConfig c = node.config();
    return "{\"service\":\"dynomite\",\"source\":" + json(c.host()) + ",\"version\":\"0.6.21-companion\""
        + ",\"uptime\":" + node.uptimeSeconds() + ",\"timestamp\":" + System.currentTimeMillis() / 1000
        + ",\"dc\":" + json(c.datacenter()) + ",\"rack\":" + json(c.rack()) + ",\"token\":" + c.token()
        + ",\"backend\":" + json(c.backend().name().toLowerCase(Locale.ROOT))
        + ",\"client_port\":" + node.clientPort() + ",\"peer_port\":" + node.peerPort()
        + (c.redisPort() > 0 ? ",\"redis_port\":" + c.redisPort() : "")
        + ",\"state\":" + json(node.state()) + ",\"read_consistency\":" + json(node.readLevel().name())
        + ",\"write_consistency\":" + json(node.writeLevel().name())
        + ",\"client_connections\":" + s.clientConnections() + ",\"client_requests\":" + s.requests()
        + ",\"forwarded\":" + s.forwarded() + ",\"replicated_out\":" + s.replicatedOut()
        + ",\"peer_requests\":" + s.peerRequests() + "," + faultState().substring(1) + "\n";
  }

  static String json(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format("\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
