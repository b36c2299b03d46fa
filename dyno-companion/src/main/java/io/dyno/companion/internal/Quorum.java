package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Collects the replies of one request sent to every rack of the datacenter and answers once a
 * quorum ({@code n/2+1}) has answered (DC_QUORUM) or has answered the same (DC_SAFE_QUORUM). When a
 * quorum can no longer be reached it answers the first peer/storage error, or, when enough racks
 * answered but disagree, {@code Failed to achieve Quorum}. Loop-confined.
 */
final class Quorum implements Consumer<RedisMessage> {
  private final int n;
  private final int need;
  private final boolean safe;
  private final Consumer<RedisMessage> callback;
  private final List<RedisMessage> good = new ArrayList<>(3);
  private RedisMessage firstFailure;
  private int received;
  private boolean done;

  Quorum(int n, boolean safe, Consumer<RedisMessage> callback) {
    this.n = n;
    this.need = n / 2 + 1;
    this.safe = safe;
    this.callback = callback;
  }

  @Override
  public void accept(RedisMessage m) {
    if (done) {
      return;
    }
    received++;
    if (Resp.isDynomiteError(m)) {
      if (firstFailure == null) {
        firstFailure = m;
      }
    } else {
      good.add(m);
      if (!safe && good.size() >= need) {
        finish(good.get(0));
        return;
      }
      if (safe && agreeing(m) >= need) {
        finish(m);
        return;
      }
    }
    int remaining = n - received;
    if (good.size() + remaining < need) {
      finish(firstFailure);
    } else if (safe && maxAgreeing() + remaining < need) {
      finish(Resp.err(Resp.NO_QUORUM));
    }
  }

  private int agreeing(RedisMessage m) {
    int c = 0;
    for (RedisMessage g : good) {
      if (Resp.same(g, m)) {
        c++;
      }
    }
    return c;
  }

  private int maxAgreeing() {
    int max = 0;
    for (RedisMessage g : good) {
      max = Math.max(max, agreeing(g));
    }
    return max;
  }

  private void finish(RedisMessage m) {
    done = true;
    callback.accept(m);
  }
}
