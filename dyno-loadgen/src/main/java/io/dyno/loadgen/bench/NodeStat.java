package io.dyno.loadgen.bench;

/**
 * Requests of one node during the measured part of a run.
 *
 * @param clientRequests what the driver sent to the node, as the driver counted them
 * @param serverRequests what the node says clients sent it (Dynomite: {@code client_read_requests +
 *     client_write_requests} of {@code /info}; companion: its request counter)
 * @param serverForwarded of those, what the node sent on to another node of its own rack because it does
 *     not own the key (the extra hop a token-aware client avoids)
 * @param backendServed GET and SET calls the Redis behind the node ran ({@code INFO commandstats}): its own
 *     clients' keys, keys forwarded to it by its rack's other nodes, and replicas of other racks' writes
 */
public record NodeStat(
    String node,
    String rack,
    Count clientRequests,
    Count serverRequests,
    Count serverForwarded,
    Count backendServed) {

  /** A node known only from the client side. */
  public static NodeStat clientOnly(
      String node, String rack, Count client, String whyNoServerCounters) {
    Count na = Count.na(whyNoServerCounters);
    return new NodeStat(node, rack, client, na, na, na);
  }

  public NodeStat withClient(Count client) {
    return new NodeStat(node, rack, client, serverRequests, serverForwarded, backendServed);
  }
}
