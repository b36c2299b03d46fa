package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * MGET / EXISTS / DEL / UNLINK / TOUCH / MSET as Dynomite serves them: split per owner in the local
 * rack, each part routed on its own, the replies merged into one (the first error, if any).
 */
final class MultiKeySplit {
  private MultiKeySplit() {}

  /**
   * Routes {@code args} (its keys every {@code spec.step()} arguments) and answers {@code done}
   * with the merged reply.
   */
  static void route(
      Coordinator coordinator,
      String name,
      Commands.Spec spec,
      byte[][] args,
      ConsistencyLevel level,
      LoopState loop,
      Consumer<RedisMessage> done) {
    int step = spec.step();
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i += step) {
      groups
          .computeIfAbsent(coordinator.localOwner(args[i]).peerId(), k -> new ArrayList<>())
          .add(i);
    }
    if (groups.size() == 1) {
      coordinator.route(args[1], spec.write(), args, level, loop, done);
      return;
    }
    List<List<Integer>> parts = new ArrayList<>(groups.values());
    RedisMessage[] replies = new RedisMessage[parts.size()];
    int[] left = {parts.size()};
    for (int p = 0; p < parts.size(); p++) {
      List<Integer> idx = parts.get(p);
      byte[][] sub = new byte[1 + idx.size() * step][];
      sub[0] = args[0];
      int j = 1;
      for (int i : idx) {
        for (int k = 0; k < step; k++) {
          sub[j++] = args[i + k];
        }
      }
      int part = p;
      coordinator.route(sub[1], spec.write(), sub, level, loop, r -> {
        replies[part] = r;
        if (--left[0] == 0) {
          done.accept(merge(name, args.length - 1, parts, replies));
        }
      });
    }
  }

  private static RedisMessage merge(
      String name, int argCount, List<List<Integer>> parts, RedisMessage[] replies) {
    for (RedisMessage r : replies) {
      if (r instanceof ErrorRedisMessage) {
        return r;
      }
    }
    switch (name) {
      case "MGET" -> {
        RedisMessage[] out = new RedisMessage[argCount];
        for (int p = 0; p < parts.size(); p++) {
          if (!(replies[p] instanceof ArrayRedisMessage a)
              || a.children().size() != parts.get(p).size()) {
            return Resp.err("ERR Dynomite: unexpected MGET reply from a peer");
          }
          for (int k = 0; k < parts.get(p).size(); k++) {
            out[parts.get(p).get(k) - 1] = a.children().get(k);
          }
        }
        return Resp.array(Arrays.asList(out));
      }
      case "MSET" -> {
        return Resp.OK;
      }
      default -> {
        long sum = 0;
        for (RedisMessage r : replies) {
          if (r instanceof IntegerRedisMessage n) {
            sum += n.value();
          }
        }
        return Resp.integer(sum);
      }
    }
  }
}
