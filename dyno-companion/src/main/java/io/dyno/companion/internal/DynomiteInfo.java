package io.dyno.companion.internal;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Dynomite's {@code /info} for one node: the same keys in the same nesting and order (counters the
 * companion does not keep are 0), then a "companion" object with its own counters and faults.
 */
final class DynomiteInfo {
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

  private final NodeServer node;

  DynomiteInfo(NodeServer node) {
    this.node = node;
  }

  /** The reply body, as of now. */
  String render() {
    var s = node.stats();
    NodeConfig c = node.config();
    Map<String, Long> known = Map.of(
        "client_connections",
        (long) s.clientConnections(),
        "client_read_requests",
        node.counters().clientReads.sum(),
        "client_write_requests",
        node.counters().clientWrites.sum(),
        "peer_requests",
        s.forwarded() + s.replicatedOut());
    StringBuilder sb = new StringBuilder("{\"service\":\"dynomite\",\"source\":")
        .append(JsonText.quote(c.host()))
        .append(",\"version\":\"v0.6.21-companion\",\"uptime\":")
        .append(node.uptimeSeconds())
        .append(",\n\"timestamp\":")
        .append(System.currentTimeMillis() / 1000)
        .append(",\n\"rack\":")
        .append(JsonText.quote(c.rack()))
        .append(",\"dc\":")
        .append(JsonText.quote(c.datacenter()))
        .append(',');
    for (String k : INFO_TOP) {
      sb.append('"').append(k).append("\":0,\n");
    }
    sb.append("\"dyn_o_mite\": {");
    for (String k : INFO_POOL) {
      sb.append('"').append(k).append("\":").append(known.getOrDefault(k, 0L)).append(",\n");
    }
    sb.append(JsonText.quote(c.host() + ":" + Math.max(c.redisPort(), 0))).append(": {");
    for (int i = 0; i < INFO_SERVER.size(); i++) {
      sb.append('"')
          .append(INFO_SERVER.get(i))
          .append("\":0")
          .append(i < INFO_SERVER.size() - 1 ? ",\n" : "\n");
    }
    sb.append("}},\n\"companion\": {\"backend\":")
        .append(JsonText.quote(c.backend().name().toLowerCase(Locale.ROOT)))
        .append(",\"token\":")
        .append(c.token())
        .append(",\"client_port\":")
        .append(node.clientPort())
        .append(",\"peer_port\":")
        .append(node.peerPort())
        .append(c.redisPort() > 0 ? ",\"redis_port\":" + c.redisPort() : "")
        .append(",\"state\":")
        .append(JsonText.quote(node.state()))
        .append(",\"read_consistency\":")
        .append(JsonText.quote(node.readLevel().name()))
        .append(",\"write_consistency\":")
        .append(JsonText.quote(node.writeLevel().name()))
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
        .append(FaultControls.state(node).substring(1))
        .append("}\n");
    return sb.toString();
  }
}
