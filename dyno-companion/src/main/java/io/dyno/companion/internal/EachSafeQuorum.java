package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * DC_EACH_SAFE_QUORUM when another datacenter has two or more racks, answered as Dynomite v0.6
 * answers it with unencrypted peer links (docs/multi-region.md): one response manager per
 * datacenter. The other datacenters' replies are checksummed with their peer headers and never
 * agree, so such a datacenter is settled only once every one of its racks has replied; errors from
 * another datacenter are ignored, so one unreachable node of it leaves the request waiting without
 * end. Once the local quorum has answered and every other datacenter is settled, the answer is the
 * local quorum's error, or {@code Failed to achieve Quorum}. Loop-confined.
 */
final class EachSafeQuorum {
  private final Consumer<RedisMessage> callback;
  /** Replies still needed per other datacenter. */
  private final Map<String, Integer> remoteNeeded = new LinkedHashMap<>();

  private RedisMessage local;
  private boolean done;

  EachSafeQuorum(List<Ring.Rack> remoteRacks, Consumer<RedisMessage> callback) {
    this.callback = callback;
    for (Ring.Rack r : remoteRacks) {
      remoteNeeded.merge(r.datacenter(), 1, Integer::sum);
    }
  }

  /** Takes the local datacenter's quorum answer. */
  Consumer<RedisMessage> local() {
    return m -> {
      local = m;
      maybeFinish();
    };
  }

  /** Takes one reply of {@code datacenter}'s owner of the key in one of its racks. */
  Consumer<RedisMessage> remote(String datacenter) {
    return m -> {
      if (!Resp.isDynomiteError(m)) {
        remoteNeeded.computeIfPresent(datacenter, (dc, n) -> n - 1);
        maybeFinish();
      }
    };
  }

  private void maybeFinish() {
    if (done || local == null || remoteNeeded.values().stream().anyMatch(n -> n > 0)) {
      return;
    }
    done = true;
    callback.accept(Resp.isDynomiteError(local) ? local : Resp.err(Resp.NO_QUORUM));
  }
}
