package io.dyno.companion;

/**
 * A snapshot of one node's counters.
 *
 * @param requests client requests received on the client port (each command of a pipeline counts)
 * @param forwarded requests (or parts of a split multi-key request) sent to another node of the local
 *     rack because that node owns the key: the hop a token-aware client saves
 * @param replicatedOut requests sent to owners in other racks (replication, quorum reads)
 * @param peerRequests requests received from other nodes on the peer port
 * @param clientConnections client connections currently open
 */
public record CompanionStats(
    long requests, long forwarded, long replicatedOut, long peerRequests, long clientConnections) {}
