package io.dyno.companion.dynomite;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Decides that a Dynomite cluster is ready by what it does, not by its ports: a real Dynomite
 * accepts clients before its peer links are up and silently keeps a write in its own rack until
 * they are (see ../shared/dynomite-facts.md). So a probe key is written through every node, and the
 * node counts as ready once its probe can be read in the Redis of every rack. Writes that were
 * dropped are simply written again under a new key on the next round; nothing sleeps for a fixed
 * time, the loop polls the Redis servers with a short interval until a deadline.
 *
 * <p>Used by {@link DynomiteCluster} and by the container helper for both server kinds.
 */
public final class ReplicationProbe {
  /** A node to write through: its name for messages, its rack and its client port. */
  public record Writer(String name, String rack, int clientPort) {}

  /** A Redis behind some node of {@code rack}. */
  public record Store(String rack, int redisPort) {}

  private static final Duration IO_TIMEOUT = Duration.ofMillis(500);
  private static final Duration ROUND = Duration.ofMillis(1_000);
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private ReplicationProbe() {}

  /**
   * Returns once a write through each writer is readable in every rack named by {@code stores};
   * throws {@link IllegalStateException} naming the writers whose writes did not get everywhere
   * (and the racks they missed) when {@code timeout} passes first.
   */
  public static void await(List<Writer> writers, List<Store> stores, Duration timeout) {
    Map<String, List<Store>> storesByRack = new LinkedHashMap<>();
    for (Store s : stores)
      storesByRack.computeIfAbsent(s.rack(), r -> new ArrayList<>()).add(s);
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<Writer, Set<String>> missing = new LinkedHashMap<>();
    for (Writer w : writers) missing.put(w, new LinkedHashSet<>(storesByRack.keySet()));
    Map<Writer, String> lastError = new LinkedHashMap<>();
    String run = UUID.randomUUID().toString().substring(0, 8);
    int round = 0;
    while (!missing.isEmpty()) {
      round++;
      Map<Writer, String> keys = new LinkedHashMap<>();
      for (Writer w : missing.keySet()) {
        String key = "dyno:ready:" + run + ":" + w.name() + ":" + round;
        try {
          String reply = RawResp.call(w.clientPort(), IO_TIMEOUT, "SET", key, "1");
          if ("+OK".equals(reply)) {
            keys.put(w, key);
          } else {
            lastError.put(w, "SET answered " + reply);
          }
        } catch (IOException e) {
          lastError.put(w, "SET failed: " + e.getMessage());
        }
      }
      long roundEnd = Math.min(deadline, System.nanoTime() + ROUND.toNanos());
      while (true) {
        for (Map.Entry<Writer, String> e : keys.entrySet()) {
          Set<String> racks = missing.get(e.getKey());
          if (racks == null) continue;
          racks.removeIf(
              rack -> storesByRack.get(rack).stream().anyMatch(s -> holds(s, e.getValue())));
          if (racks.isEmpty()) missing.remove(e.getKey());
        }
        if (missing.isEmpty() || System.nanoTime() >= roundEnd) break;
        LockSupport.parkNanos(POLL_NANOS); // poll interval of a bounded wait
      }
      if (!missing.isEmpty() && System.nanoTime() >= deadline) {
        throw new IllegalStateException(notReady(missing, lastError, timeout));
      }
      // Racks already reached by an earlier round stay reached; a new key tests the others again.
    }
    cleanUp(stores, run);
  }

  private static boolean holds(Store s, String key) {
    try {
      return RawResp.call(s.redisPort(), IO_TIMEOUT, "GET", key) != null;
    } catch (IOException e) {
      return false;
    }
  }

  private static void cleanUp(List<Store> stores, String run) {
    // The probe keys would otherwise show up in SCAN/KEYS-based tests: delete them at the source.
    for (Store s : stores) {
      try {
        RawResp.call(
            s.redisPort(),
            IO_TIMEOUT,
            "EVAL",
            "for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 0",
            "0",
            "dyno:ready:" + run + ":*");
      } catch (IOException ignored) {
        // best effort: a leftover probe key is harmless
      }
    }
  }

  private static String notReady(
      Map<Writer, Set<String>> missing, Map<Writer, String> lastError, Duration timeout) {
    StringBuilder b = new StringBuilder("Dynomite cluster not ready within ")
        .append(timeout)
        .append(": writes through these nodes did not reach every rack's Redis:");
    for (Map.Entry<Writer, Set<String>> e : missing.entrySet()) {
      Writer w = e.getKey();
      b.append("\n  ")
          .append(w.name())
          .append(" (rack ")
          .append(w.rack())
          .append(", 127.0.0.1:")
          .append(w.clientPort())
          .append(") missing in ")
          .append(String.join(", ", e.getValue()));
      String err = lastError.get(w);
      if (err != null) b.append("; last write: ").append(err);
    }
    return b.toString();
  }
}
