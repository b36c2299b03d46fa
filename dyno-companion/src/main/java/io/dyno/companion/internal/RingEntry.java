package io.dyno.companion.internal;

/** One node as every node of the cluster sees it: where it is and which token it owns. */
public record RingEntry(
    String datacenter, String rack, long token, String host, int peerPort, int clientPort) {
  /** {@code host:peerPort}, the peer identity. */
  public String peerId() {
    return host + ":" + peerPort;
  }

  /**
   * Parses a Dynomite seed {@code host:peerPort:rack:dc:token}, optionally followed by
   * {@code :clientPort} (default peerPort + 1, Dynomite's 8101/8102 convention).
   */
  public static RingEntry parseSeed(String seed) {
    String[] p = seed.trim().split(":");
    if (p.length != 5 && p.length != 6) {
      throw new IllegalArgumentException(
          "seed \"" + seed + "\" must be host:peerPort:rack:dc:token[:clientPort]");
    }
    try {
      int peerPort = Integer.parseInt(p[1]);
      long token = Long.parseLong(p[4]);
      if (token < 0 || token > 0xffffffffL) {
        throw new IllegalArgumentException(
            "seed \"" + seed + "\": token must be an unsigned 32-bit value");
      }
      int clientPort = p.length == 6 ? Integer.parseInt(p[5]) : peerPort + 1;
      return new RingEntry(p[3], p[2], token, p[0], peerPort, clientPort);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "seed \"" + seed + "\": bad number (" + e.getMessage() + ")", e);
    }
  }
}
