package io.dyno.core.routing.internal;

import io.dyno.core.Host;
import io.dyno.core.internal.KeyText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys whose latest write this client sent to another rack because the key's preferred owner was
 * away (out of rotation, or failing the call): key → the rack that took it. Dynomite never repairs a
 * replica, so once the preferred owner returns it still holds what it had before; every later call
 * on such a key (read or write) goes first to the remembered rack's owner, and falls back to the
 * usual order only while that owner is itself out of rotation (the call's candidate walk skips it).
 * Such a read is not hedged, since the hedge would go to the owner that missed the write. A write
 * that moved only because its owner was steered away from or busy (still replicating) is not
 * remembered.
 *
 * <p>A key is forgotten once its preferred owner holds it again: when that owner is in rotation, a
 * write replacing the key's whole value (plain SET, SETEX, PSETEX, DEL) goes to it rather than to
 * the remembered rack (the call's decider sees to it), and once it succeeds there Dynomite replicates it to every
 * rack ({@link #forget}). Until then reads, counters and partial writes stay with the remembered
 * rack.
 *
 * <p>Cost: while nothing is remembered, {@link #preferring} reads the map's size only. A remembered
 * key costs its bytes and a map entry until it is forgotten; lookups then encode a String key to
 * bytes. At most {@code limit} keys are kept: past it one warning, and further keys are not
 * remembered (their reads may then see the returned owner's old value). Thread-safe.
 */
public final class DivergedKeys {
  private static final Logger log = LoggerFactory.getLogger(DivergedKeys.class);

  private final ConcurrentHashMap<ByteBuffer, String> racks = new ConcurrentHashMap<>();
  private final int limit;
  private final AtomicBoolean warned = new AtomicBoolean();

  /** @param limit the most keys remembered ({@code divergedKeyLimit}); 0 remembers none */
  public DivergedKeys(int limit) {
    this.limit = limit;
  }

  /**
   * {@code candidates} with the owner in {@code key}'s remembered rack first and the rest in their
   * order; {@code candidates} itself (not copied) when the key is not remembered, is null, or its
   * rack already comes first.
   */
  public List<Host> preferring(Object key, List<Host> candidates) {
    if (racks.isEmpty() || key == null || candidates.isEmpty()) {
      return candidates;
    }
    String rack = racks.get(bytes(key));
    if (rack == null || rack.equals(candidates.get(0).rack())) {
      return candidates;
    }
    int first = -1;
    for (int i = 1; i < candidates.size(); i++) {
      if (rack.equals(candidates.get(i).rack())) {
        first = i;
        break;
      }
    }
    if (first < 0) {
      return candidates; // the rack left the topology: the usual order
    }
    List<Host> out = new ArrayList<>(candidates.size());
    out.add(candidates.get(first));
    for (int i = 0; i < candidates.size(); i++) {
      if (i != first) {
        out.add(candidates.get(i));
      }
    }
    return out;
  }

  /**
   * A write replacing {@code key}'s whole value succeeded on its preferred owner, which replicates it
   * to every rack: the key's calls go the usual way again.
   */
  public void forget(Object key) {
    if (key != null && !racks.isEmpty() && racks.remove(bytes(key)) != null) {
      log.debug(
          "key {} is written home again: its calls go to its preferred owner", KeyText.show(key));
    }
  }

  /**
   * A write of {@code command} on {@code key} was served by {@code served} although
   * {@code preferred} (in another rack) came first: remembers the key in {@code served}'s rack.
   */
  public void served(String command, Object key, Host preferred, Host served) {
    if (key == null || served.rack().equals(preferred.rack())) {
      return;
    }
    ByteBuffer k = bytes(key);
    String before = racks.get(k);
    if (served.rack().equals(before)) {
      return;
    }
    if (before == null && racks.size() >= limit) {
      if (warned.compareAndSet(false, true)) {
        log.warn(
            "{} on key {} was served in {} while its owner {} ({}) was away, but {} keys are"
                + " remembered already (divergedKeyLimit): this and further such keys are not"
                + " remembered, so a read of them may be served by {} with the value it had before",
            command,
            KeyText.show(key),
            served.rack(),
            preferred,
            preferred.rack(),
            limit,
            preferred);
      }
      return;
    }
    racks.put(before == null ? copy(k) : k, served.rack());
    log.debug(
        "{} on key {} was served by {} ({}) while {} was away: the key's calls go to {} first",
        command,
        KeyText.show(key),
        served,
        served.rack(),
        preferred,
        served.rack());
  }

  /** {@return the rack remembered for {@code key}, or null} */
  public String rackOf(Object key) {
    return key != null && !racks.isEmpty() ? racks.get(bytes(key)) : null;
  }

  /** {@return how many keys are remembered} */
  public int size() {
    return racks.size();
  }

  /** The key's bytes as Redis sees them: a String in UTF-8, as the drivers send it. */
  private static ByteBuffer bytes(Object key) {
    return ByteBuffer.wrap(
        key instanceof byte[] b ? b : String.valueOf(key).getBytes(StandardCharsets.UTF_8));
  }

  /** A caller's byte[] may be reused after the call: the map keeps its own copy. */
  private static ByteBuffer copy(ByteBuffer k) {
    byte[] c = new byte[k.remaining()];
    k.duplicate().get(c);
    return ByteBuffer.wrap(c);
  }
}
