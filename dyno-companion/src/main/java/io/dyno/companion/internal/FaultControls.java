package io.dyno.companion.internal;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The companion's own admin controls, which Dynomite does not have: {@code /fault/...} (stop,
 * start, hang, delay, error replies, cut peer links, datastore down, clear) and
 * {@code /stats/reset}. A bad control is an {@link IllegalArgumentException} saying how to use it.
 */
final class FaultControls {
  private final NodeServer node;

  FaultControls(NodeServer node) {
    this.node = node;
  }

  /** Applies the control {@code path} names; answers the node's fault state as JSON. */
  String apply(String path, FullHttpRequest req) {
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
    return state(node);
  }

  /** Whether the node runs, its peer links and backend, and its reply faults, as a JSON object. */
  static String state(NodeServer node) {
    return "{\"running\":" + node.isRunning() + ",\"peers_cut\":" + node.peersCut()
        + ",\"backend_down\":" + node.backendIsDown() + ",\"faults\":" + node.faults() + "}";
  }

  private static String usage() {
    return "companion endpoints: /fault/stop /fault/start /fault/hang /fault/unhang /fault/delay/<ms> /fault/error/<text> "
        + "/fault/cut_peers /fault/restore_peers /fault/backend_down /fault/backend_up /fault/clear /fault/state "
        + "/stats/reset /REST/v1/admin/cluster_describe; Dynomite's: see /help";
  }
}
