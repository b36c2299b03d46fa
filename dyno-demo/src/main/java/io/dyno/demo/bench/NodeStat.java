package io.dyno.demo.bench;

/**
 * Requests one node served during the measured part of a run. {@code serverRequests} and
 * {@code serverForwarded} come from the server's own counters (-1 when the target has none);
 * {@code clientRequests} from the driver (-1 when it does not count per node).
 */
public record NodeStat(String node, String rack, long serverRequests, long serverForwarded, long clientRequests) {}
