package io.dyno.companion.containers;

import io.dyno.core.routing.KeyHasher;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Readiness of a cluster as a client needs it: every node replicates. A real Dynomite node accepts
 * clients before its peer links are up and, until they are, silently stores a write in its own rack
 * only; so "answers PING" is not "ready". Here, through every node, one probe key per token range
 * is written and read back from the storage of that range's owner in every rack. A node whose probes
 * did not arrive everywhere is written again in the next round (a write made before the peers
 * connected is never replicated later), until all are ready or the bound passes.
 */
final class ReplicationProbe {
  /** One node: where clients write, and where its data lands ({@code storagePort}: its Redis, or its client port without one). */
  record Target(String name, String rack, int index, long token, int clientPort, int storagePort) {}

  private static final Duration IO_TIMEOUT = Duration.ofMillis(1000);
  /** How long one round waits for its writes to show up before writing them again. */
  private static final Duration ROUND = Duration.ofMillis(1000);

  private ReplicationProbe() {}

  /**
   * Returns once a probe written through every node in {@code nodes} is readable in the storage of
   * its owner in every rack; else throws {@link IllegalStateException} naming each node not ready
   * and what it lacked.
   */
  static void await(List<Target> nodes, String hashtag, Duration timeout) {
    KeyHasher hasher = hashtag == null ? KeyHasher.noHashtag() : KeyHasher.forHashtag(hashtag);
    List<String> racks = nodes.stream().map(Target::rack).distinct().toList();
    List<Long> tokens = nodes.stream().filter(n -> n.rack().equals(racks.get(0)))
        .map(Target::token).sorted().toList();
    // Per node, one key owned by each token range (index in rack), so every peer link is used.
    Map<Target, List<String>> keys = new LinkedHashMap<>();
    for (Target n : nodes) {
      List<String> own = new ArrayList<>();
      for (int i = 0; i < tokens.size(); i++) {
        own.add(keyOwnedBy(hasher, tokens, i, "dyno:probe:" + n.rack() + "/" + n.index() + ":" + i));
      }
      keys.put(n, own);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<Target, String> pending = new LinkedHashMap<>();
    keys.keySet().forEach(n -> pending.put(n, "not probed yet"));
    int round = 0;
    while (true) {
      round++;
      String value = "round-" + round + "-" + System.nanoTime();
      Map<Target, String> written = new LinkedHashMap<>();
      for (Target n : List.copyOf(pending.keySet())) {
        try {
          for (String k : keys.get(n)) {
            String reply = command(n.clientPort(), "SET", k, value);
            if (!"OK".equals(reply)) throw new IOException("SET " + k + " answered " + reply);
          }
          written.put(n, value);
        } catch (IOException e) {
          pending.put(n, "a probe SET through it failed: " + e.getMessage());
        }
      }
      long roundEnd = Math.min(deadline, System.nanoTime() + ROUND.toNanos());
      while (true) {
        for (Target n : List.copyOf(written.keySet())) {
          String missing = missingCopies(nodes, racks, keys.get(n), value);
          if (missing.isEmpty()) {
            pending.remove(n);
            written.remove(n);
          } else {
            pending.put(n, "probe of round " + round + " missing in " + missing);
          }
        }
        if (pending.isEmpty()) {
          cleanUp(keys);
          return;
        }
        if (written.isEmpty() || System.nanoTime() > roundEnd) break;
        pause(20);
      }
      if (System.nanoTime() > deadline) {
        StringBuilder b = new StringBuilder("cluster not replicating after " + timeout + " (" + round
            + " probe rounds): " + pending.size() + " of " + nodes.size() + " nodes not ready:");
        pending.forEach((n, why) -> b.append("\n  ").append(n.name()).append(" (127.0.0.1:")
            .append(n.clientPort()).append("): ").append(why));
        throw new IllegalStateException(b.toString());
      }
      pause(50);
    }
  }

  /** The owners (one per rack) lacking {@code value}, e.g. "redis of rack3/1 (127.0.0.1:4242)", or "". */
  private static String missingCopies(List<Target> nodes, List<String> racks, List<String> keys, String value) {
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      for (String rack : racks) {
        int index = i;
        Target owner = nodes.stream().filter(t -> t.rack().equals(rack) && t.index() == index).findFirst().orElse(null);
        if (owner == null) continue;
        String got;
        try {
          got = command(owner.storagePort(), "GET", keys.get(i));
        } catch (IOException e) {
          got = "(" + e.getMessage() + ")";
        }
        if (!value.equals(got)) missing.add("storage of " + owner.name() + " (127.0.0.1:" + owner.storagePort() + ")");
      }
    }
    return String.join(", ", missing);
  }

  private static void cleanUp(Map<Target, List<String>> keys) {
    keys.forEach((n, ks) -> {
      try {
        for (String k : ks) command(n.clientPort(), "DEL", k);
      } catch (IOException ignored) {
        // best effort: a leftover probe key is harmless
      }
    });
  }

  /** A key named {@code prefix#n} whose owner is the {@code index}-th token (ownership as Dynomite computes it). */
  static String keyOwnedBy(KeyHasher hasher, List<Long> sortedTokens, int index, String prefix) {
    for (int n = 0; ; n++) {
      String k = prefix + "#" + n;
      if (ownerIndex(sortedTokens, hasher.hash(k)) == index) return k;
    }
  }

  /** The smallest token {@code >= hash}; past the largest token: the smallest. */
  static int ownerIndex(List<Long> sortedTokens, long hash) {
    for (int i = 0; i < sortedTokens.size(); i++) {
      if (sortedTokens.get(i) >= hash) return i;
    }
    return 0;
  }

  /** One RESP command on a fresh connection: a simple or bulk string reply (null for a nil bulk). */
  static String command(int port, String... args) throws IOException {
    try (Socket s = new Socket()) {
      int ms = (int) IO_TIMEOUT.toMillis();
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), ms);
      s.setSoTimeout(ms);
      ByteArrayOutputStream req = new ByteArrayOutputStream();
      req.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String a : args) {
        byte[] b = a.getBytes(StandardCharsets.UTF_8);
        req.writeBytes(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        req.writeBytes(b);
        req.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
      OutputStream out = s.getOutputStream();
      out.write(req.toByteArray());
      out.flush();
      InputStream in = s.getInputStream();
      String line = line(in);
      return switch (line.isEmpty() ? ' ' : line.charAt(0)) {
        case '+', ':' -> line.substring(1);
        case '-' -> throw new IOException("error reply '" + line.substring(1) + "' to " + args[0] + " on port " + port);
        case '$' -> {
          int len = Integer.parseInt(line.substring(1));
          if (len < 0) yield null;
          byte[] b = in.readNBytes(len + 2);
          if (b.length < len + 2) throw new IOException("connection closed mid-reply on port " + port);
          yield new String(b, 0, len, StandardCharsets.UTF_8);
        }
        default -> throw new IOException("unexpected reply '" + line + "' to " + args[0] + " on port " + port);
      };
    } catch (java.net.SocketTimeoutException e) {
      throw new IOException("no reply within " + IO_TIMEOUT.toMillis() + " ms on port " + port, e);
    } catch (java.net.ConnectException e) {
      throw new IOException("connection refused on port " + port, e);
    }
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\r') {
        in.read(); // '\n'
        return b.toString();
      }
      b.append((char) c);
    }
    throw new IOException("connection closed before a reply");
  }

  private static void pause(long ms) {
    try {
      Thread.sleep(ms); // poll interval of a bounded wait
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cluster to replicate", e);
    }
  }
}
