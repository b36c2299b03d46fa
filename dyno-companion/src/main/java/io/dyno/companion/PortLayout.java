package io.dyno.companion;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fixed ports of {@link CompanionCluster.Builder#basePort}: node i (datacenter by datacenter,
 * rack by rack) listens for clients on base + 10i, for peers one below (Dynomite's convention) and
 * for admin requests 1000 above.
 */
final class PortLayout {
  private static final int TRIES = 50;

  private PortLayout() {}

  static int client(int base, int node) {
    return base + 10 * node;
  }

  static int peer(int base, int node) {
    return client(base, node) - 1;
  }

  static int admin(int base, int node) {
    return client(base, node) + 1000;
  }

  /** A base whose ports for {@code nodes} nodes are all free on 127.0.0.1 now. */
  static int freeBase(int nodes) {
    for (int attempt = 0; attempt < TRIES; attempt++) {
      int base = 20_000 + 10 * ThreadLocalRandom.current().nextInt(3_000);
      boolean free = true;
      for (int i = 0; i < nodes && free; i++) {
        free = free(client(base, i)) && free(peer(base, i)) && free(admin(base, i));
      }
      if (free) {
        return base;
      }
    }
    throw new IllegalStateException(
        "no base port with " + nodes + " nodes' ports free on 127.0.0.1 in " + TRIES + " tries");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
