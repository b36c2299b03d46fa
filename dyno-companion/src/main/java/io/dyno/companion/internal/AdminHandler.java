package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The admin HTTP port: Dynomite's stats endpoints answered as Dynomite answers them (its header
 * bytes, its bodies, OK for any path it does not know, connection closed after the reply), plus
 * the companion's own {@code /fault/...} controls and the Dynomite-manager cluster_describe.
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  /** The states Dynomite's /state/&lt;name&gt; sets; lower case only, like its parser. */
  private static final Set<String> STATES = Set.of("normal", "standby", "writes_only", "resuming");

  private static final String OK = "OK\r\n";
  private static final String HELP =
      "/info\n/help\n/ping\n/cluster_describe\n/setloglevel/<0-11>\n/loglevelup\n"
          + "/logleveldown\n/historeset\n/get_consistency\n/set_consistency/<read|write>/<dc_one|dc_quorum|dc_safe_quorum>\n"
          + "/get_timeout_factor\n/set_timeout_factor/<1-10>\n/peer/<up|down|reset>\n"
          + "/state/<get_state|standby|writes_only|normal|resuming>\n\n";

  private final NodeServer node;

  AdminHandler(NodeServer node) {
    this.node = node;
  }

  /** Faults such as stop/start wait for sockets to close and bind: never on an event loop. */
  private static final ExecutorService WORKER = Executors.newCachedThreadPool(r -> {
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
    int status = 200;
    try {
      if (path.startsWith("/fault/") || path.equals("/stats/reset")) {
        body = fault(path, q, req); // the companion's own controls
      } else if (path.equals("/REST/v1/admin/cluster_describe")) {
        body = managerClusterDescribe(); // Dynomite-manager's shape, for clients that read it
      } else {
        body = dynomite(path);
      }
    } catch (IllegalArgumentException e) {
      status = 400;
      body = e.getMessage();
    }
    // Raw bytes: the pipeline has a request decoder and no response encoder.
    ctx.writeAndFlush(Unpooled.wrappedBuffer(response(status, body)))
        .addListener(ChannelFutureListener.CLOSE);
  }

  /**
   * Dynomite's stats-port reply byte for byte: header lines ending in " \n", the last in
   * " \r\n\r\n", always a JSON content type. (Status 400 only for the companion's fault controls.)
   */
  static byte[] response(int status, String body) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    String head = "HTTP/1.1 " + (status == 200 ? "200 OK" : status + " Bad Request")
        + " \nContent-Type: application/json; charset=utf-8 \nContent-Length: " + b.length
        + " \r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[h.length + b.length];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(b, 0, all, h.length, b.length);
    return all;
  }

  /** Dynomite's stats endpoints as its parser matches them; anything it does not know answers OK. */
  private String dynomite(String path) {
    switch (path) {
      case "/info":
        return info();
      case "/help":
        return HELP;
      case "/cluster_describe":
        return clusterDescribe();
      case "/get_consistency":
        return "Read Consistency: " + node.readLevel() + "\r\nWrite Consistency: "
            + node.writeLevel() + "\r\n";
      case "/get_timeout_factor":
        return "Timeout factor: 1\n";
      default:
        break;
    }
    if (path.startsWith("/set_consistency")) {
      setConsistency(path.substring("/set_consistency".length()));
      return OK; // a level Dynomite does not know changes nothing and is still OK
    }
    if (path.startsWith("/read_repairs/enable")) {
      return "Read Repairs: ENABLED\r\n";
    }
    if (path.startsWith("/read_repairs/disable")) {
      return "Read Repairs: DISABLED\r\n";
    }
    if (path.startsWith("/state") && path.length() > 7) {
      String s = path.substring(7); // Dynomite skips one character after "/state", whatever it is
      if (s.equals("get_state")) {
        return "State: " + node.state() + "\n";
      }
      if (STATES.contains(s)) {
        node.setState(s);
      }
    }
    return OK; // "/", "/ping", unknown paths, log levels, /peer/..., /set_timeout_factor/...
  }

  /** {@code rest} follows "/set_consistency": "/read/&lt;level&gt;" or "/write/&lt;level&gt;", the levels Dynomite's stats port knows. */
  private void setConsistency(String rest) {
    boolean read = rest.startsWith("/read");
    if (!read && !rest.startsWith("/write")) {
      return;
    }
    String level = rest.substring(read ? 5 : 6);
    for (ConsistencyLevel l : List.of(
        ConsistencyLevel.DC_ONE, ConsistencyLevel.DC_QUORUM, ConsistencyLevel.DC_SAFE_QUORUM)) {
      if (level.equalsIgnoreCase("/" + l.name())) {
        node.setConsistency(read, l);
      }
    }
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
          throw new IllegalArgumentException(
              "use /fault/error/<url-encoded error text> (or POST the text)");
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
      case "state" -> {}
      default ->
        throw new IllegalArgumentException("unknown fault endpoint " + path + "\n" + usage());
    }
    return faultState();
  }

  private String faultState() {
    return "{\"running\":" + node.isRunning() + ",\"peers_cut\":" + node.peersCut()
        + ",\"backend_down\":" + node.backendIsDown() + ",\"faults\":" + node.faults() + "}";
  }

  private static String usage() {
    return "companion endpoints: /fault/stop /fault/start /fault/hang /fault/unhang /fault/delay/<ms> /fault/error/<text> "
        + "/fault/cut_peers /fault/restore_peers /fault/backend_down /fault/backend_up /fault/clear /fault/state "
        + "/stats/reset /REST/v1/admin/cluster_describe; Dynomite's: see /help";
  }

  /**
   * Dynomite's shape byte for byte: dcs > racks > servers, port = peer port, token a number, and a
   * line break after each number where Dynomite's JSON writer puts one.
   */
  private String clusterDescribe() {
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
          .append(json(dc.getKey()))
          .append(",\"racks\": [");
      firstDc = false;
      boolean firstRack = true;
      for (var rack : dc.getValue().entrySet()) {
        sb.append(firstRack ? "" : ",")
            .append("{\"name\":")
            .append(json(rack.getKey()))
            .append(",\"servers\": [");
        firstRack = false;
        boolean firstServer = true;
        for (RingEntry e : rack.getValue()) {
          sb.append(firstServer ? "" : ",")
              .append("{\"name\":")
              .append(json(e.host()))
              .append(",\"host\":")
              .append(json(e.host()))
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
  private String managerClusterDescribe() {
    StringBuilder sb = new StringBuilder("[");
    boolean first = true;
    String tag = node.config().hashtag() == null ? "" : node.config().hashtag();
    for (RingEntry e : sorted()) {
      sb.append(first ? "" : ",")
          .append("{\"token\":")
          .append(json(Long.toString(e.token())))
          .append(",\"hostname\":")
          .append(json(e.host()))
          .append(",\"ip\":")
          .append(json(e.host()))
          .append(",\"zone\":")
          .append(json(e.rack()))
          .append(",\"rack\":")
          .append(json(e.rack()))
          .append(",\"dc\":")
          .append(json(e.datacenter()))
          .append(",\"port\":")
          .append(json(Integer.toString(e.clientPort())))
          .append(",\"secure_port\":")
          .append(json(Integer.toString(e.clientPort())))
          .append(",\"hashtag\":")
          .append(json(tag))
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

  /** Top-level numbers of Dynomite's /info, in its order (latency and queue histograms, memory). */
  private static final List<String> INFO_TOP = List.of(
      "latency_max",
      "latency_999th",
      "latency_99th",
      "latency_95th",
      "latency_mean",
      "payload_size_max",
      "payload_size_999th",
      "payload_size_99th",
      "payload_size_95th",
      "payload_size_mean",
      "average_cross_region_rtt",
      "99_cross_region_rtt",
      "average_cross_zone_latency",
      "99_cross_zone_latency",
      "average_server_latency",
      "99_server_latency",
      "average_cross_region_queue_wait",
      "99_cross_region_queue_wait",
      "average_cross_zone_queue_wait",
      "99_cross_zone_queue_wait",
      "average_server_queue_wait",
      "99_server_queue_wait",
      "client_out_queue_99",
      "server_in_queue_99",
      "server_out_queue_99",
      "dnode_client_out_queue_99",
      "peer_in_queue_99",
      "peer_out_queue_99",
      "remote_peer_out_queue_99",
      "remote_peer_in_queue_99",
      "alloc_msgs",
      "free_msgs",
      "alloc_mbufs",
      "free_mbufs",
      "dyn_memory");
  /** The "dyn_o_mite" pool counters. */
  private static final List<String> INFO_POOL = List.of(
      "client_eof",
      "client_err",
      "client_connections",
      "client_read_requests",
      "client_write_requests",
      "client_dropped_requests",
      "client_non_quorum_w_responses",
      "client_non_quorum_r_responses",
      "server_ejects",
      "dnode_client_eof",
      "dnode_client_err",
      "dnode_client_connections",
      "dnode_client_in_queue",
      "dnode_client_in_queue_bytes",
      "dnode_client_out_queue",
      "dnode_client_out_queue_bytes",
      "peer_dropped_requests",
      "peer_timedout_requests",
      "remote_peer_dropped_requests",
      "remote_peer_timedout_requests",
      "remote_peer_failover_requests",
      "peer_eof",
      "peer_err",
      "peer_timedout",
      "remote_peer_timedout",
      "peer_connections",
      "peer_forward_error",
      "peer_requests",
      "peer_request_bytes",
      "peer_responses",
      "peer_response_bytes",
      "peer_ejected_at",
      "peer_ejects",
      "peer_in_queue",
      "remote_peer_in_queue",
      "peer_in_queue_bytes",
      "remote_peer_in_queue_bytes",
      "peer_out_queue",
      "remote_peer_out_queue",
      "peer_out_queue_bytes",
      "remote_peer_out_queue_bytes",
      "peer_mismatch_requests",
      "forward_error",
      "fragments",
      "stats_count");
  /** The datastore server's counters, under its "host:port" name. */
  private static final List<String> INFO_SERVER = List.of(
      "server_eof",
      "server_err",
      "server_timedout",
      "server_ejected_at",
      "server_dropped_requests",
      "server_timedout_requests",
      "read_requests",
      "read_request_bytes",
      "write_requests",
      "write_request_bytes",
      "read_responses",
      "read_response_bytes",
      "write_responses",
      "write_response_bytes",
      "in_queue",
      "in_queue_bytes",
      "out_queue",
      "out_queue_bytes",
      "redis_req_get",
      "redis_req_set",
      "redis_req_del",
      "redis_req_incr_decr",
      "redis_req_keys",
      "redis_req_mget",
      "redis_req_scan",
      "redis_req_sort",
      "redis_req_lreqm",
      "redis_req_sunion",
      "redis_req_ping",
      "redis_req_lists",
      "redis_req_sets",
      "redis_req_hashes",
      "redis_req_sortedsets",
      "redis_req_other");

  /**
   * Dynomite's /info: the same keys in the same nesting and order (counters the companion does not
   * keep are 0), then a "companion" object with the companion's own routing counters and faults.
   */
  private String info() {
    var s = node.stats();
    NodeConfig c = node.config();
    Map<String, Long> known = Map.of(
        "client_connections",
        (long) s.clientConnections(),
        "client_read_requests",
        node.clientReads.sum(),
        "client_write_requests",
        node.clientWrites.sum(),
        "peer_requests",
        s.forwarded() + s.replicatedOut());
    StringBuilder sb = new StringBuilder("{\"service\":\"dynomite\",\"source\":")
        .append(json(c.host()))
        .append(",\"version\":\"v0.6.21-companion\",\"uptime\":")
        .append(node.uptimeSeconds())
        .append(",\n\"timestamp\":")
        .append(System.currentTimeMillis() / 1000)
        .append(",\n\"rack\":")
        .append(json(c.rack()))
        .append(",\"dc\":")
        .append(json(c.datacenter()))
        .append(',');
    for (String k : INFO_TOP) {
      sb.append('"').append(k).append("\":0,\n");
    }
    sb.append("\"dyn_o_mite\": {");
    for (String k : INFO_POOL) {
      sb.append('"').append(k).append("\":").append(known.getOrDefault(k, 0L)).append(",\n");
    }
    sb.append(json(c.host() + ":" + Math.max(c.redisPort(), 0))).append(": {");
    for (int i = 0; i < INFO_SERVER.size(); i++) {
      sb.append('"')
          .append(INFO_SERVER.get(i))
          .append("\":0")
          .append(i < INFO_SERVER.size() - 1 ? ",\n" : "\n");
    }
    sb.append("}},\n\"companion\": {\"backend\":")
        .append(json(c.backend().name().toLowerCase(Locale.ROOT)))
        .append(",\"token\":")
        .append(c.token())
        .append(",\"client_port\":")
        .append(node.clientPort())
        .append(",\"peer_port\":")
        .append(node.peerPort())
        .append(c.redisPort() > 0 ? ",\"redis_port\":" + c.redisPort() : "")
        .append(",\"state\":")
        .append(json(node.state()))
        .append(",\"read_consistency\":")
        .append(json(node.readLevel().name()))
        .append(",\"write_consistency\":")
        .append(json(node.writeLevel().name()))
        .append(",\"client_connections\":")
        .append(s.clientConnections())
        .append(",\"client_requests\":")
        .append(s.requests())
        .append(",\"forwarded\":")
        .append(s.forwarded())
        .append(",\"replicated_out\":")
        .append(s.replicatedOut())
        .append(",\"peer_requests\":")
        .append(s.peerRequests())
        .append(',')
        .append(faultState().substring(1))
        .append("}\n");
    return sb.toString();
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
