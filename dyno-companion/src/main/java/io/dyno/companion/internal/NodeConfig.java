package io.dyno.companion.internal;

import io.dyno.companion.Backend;
import java.time.Duration;

/**
 * What one node is: its place in the cluster and its ports (0 = pick a free port).
 *
 * @param redisPort the backend redis-server's port for {@link Backend#REDIS}, -1 otherwise
 * @param hashtag two characters or null
 */
public record NodeConfig(
    String datacenter,
    String rack,
    long token,
    String host,
    int clientPort,
    int peerPort,
    int adminPort,
    Backend backend,
    int redisPort,
    String hashtag,
    Duration peerTimeout) {}
