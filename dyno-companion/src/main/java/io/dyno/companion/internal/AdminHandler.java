package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
  private final FaultControls faults;
  private final ClusterDescriptions describe;
  private final DynomiteInfo info;

  AdminHandler(NodeServer node) {
    this.node = node;
    this.faults = new FaultControls(node);
    this.describe = new ClusterDescriptions(node);
    this.info = new DynomiteInfo(node);
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
        body = faults.apply(path, req); // the companion's own controls
      } else if (path.equals("/REST/v1/admin/cluster_describe")) {
        body = describe.manager(); // Dynomite-manager's shape, for clients that read it
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
        return info.render();
      case "/help":
        return HELP;
      case "/cluster_describe":
        return describe.dynomite();
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

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
