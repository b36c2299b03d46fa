package io.dyno.jedis.internal.mux;

import io.dyno.core.ConsistencyLevel;
import java.net.InetSocketAddress;

/**
 * The node one connection talks to, and how: its name in every message, its address, the settings
 * of each socket to it and the consistency level each carries for life (null: none is sent).
 */
record MuxEndpoint(
    String node, InetSocketAddress address, MuxSettings settings, ConsistencyLevel consistency) {}
