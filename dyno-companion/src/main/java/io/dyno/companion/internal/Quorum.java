package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.function.Consumer;

/**
 * Collects the replies of one request sent to every rack of the datacenter, as Dynomite's response
 * manager does: it answers once a quorum ({@code n/2+1}) of the racks answered the same; while the
 * replies so far disagree it waits for the others. When every rack answered and no quorum agrees,
 * DC_QUORUM answers the first reply, DC_SAFE_QUORUM {@code Failed to achieve Quorum}; when a quorum
 * can no longer answer at all, the first peer/storage error. Dynomite's "first" is the first to
 * arrive, in practice the local rack's (no peer hop): here it is the local rack's, by the rack
 * order the replies are tagged with ({@link #from}), so that a replay does not depend on which
 * peer's reply a busy machine delivered first. Loop-confined.
 */
final class Quorum {
  private final int n;
  private final int need;
  private final boolean safe;
  private final Consumer<RedisMessage> callback;
  /** The good reply of each rack, by its index in the request's rack order (0: the local rack). */
  private final RedisMessage[] good;

  private int goodCount;
  private RedisMessage firstFailure;
  private int received;
  private boolean done;

  Quorum(int n, boolean safe, Consumer<RedisMessage> callback) {
    this.n = n;
    this.need = n / 2 + 1;
    this.safe = safe;
    this.callback = callback;
    this.good = new RedisMessage[n];
  }

  /** Where the reply of the {@code rack}th rack of the request's order goes (0: the local rack). */
  Consumer<RedisMessage> from(int rack) {
    return m -> accept(rack, m);
  }

  private void accept(int rack, RedisMessage m) {
    if (done) {
      return;
    }
    received++;
    if (Resp.isDynomiteError(m)) {
      if (firstFailure == null) {
        firstFailure = m;
      }
    } else {
      good[rack] = m;
      goodCount++;
      if (agreeing(m) >= need) {
        finish(m);
        return;
      }
    }
    int remaining = n - received;
    if (goodCount + remaining < need) {
      finish(firstFailure);
    } else if (maxAgreeing() + remaining < need) {
      finish(safe ? Resp.err(Resp.NO_QUORUM) : firstGood());
    }
  }

  private RedisMessage firstGood() {
    for (RedisMessage g : good) {
      if (g != null) {
        return g;
      }
    }
    throw new IllegalStateException("no good reply");
  }

  private int agreeing(RedisMessage m) {
    int c = 0;
    for (RedisMessage g : good) {
      if (g != null && Resp.same(g, m)) {
        c++;
      }
    }
    return c;
  }

  private int maxAgreeing() {
    int max = 0;
    for (RedisMessage g : good) {
      if (g != null) {
        max = Math.max(max, agreeing(g));
      }
    }
    return max;
  }

  private void finish(RedisMessage m) {
    done = true;
    callback.accept(m);
  }
}
