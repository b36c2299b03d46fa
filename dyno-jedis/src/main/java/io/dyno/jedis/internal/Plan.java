package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.jedis.internal.CommandTable.Merge;
import io.dyno.jedis.internal.CommandTable.Routing;
import io.dyno.jedis.internal.CommandTable.Spec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * How one Jedis command runs on the cluster: one or more parts, each for one node (or one list of
 * candidate replicas), and how their raw replies merge back into what the caller's command would
 * have returned from a single Redis.
 */
final class Plan {
  /**
   * One request to one owner. {@code key} routes it (null: run on {@code candidates}). {@code pieces},
   * when not null, are what is actually sent instead of {@code args}, in one pipeline: the shape
   * Dynomite cannot take split into shapes it can (see {@link Spec#splitStride}), or, with
   * {@code oneKeyPieces}, a multi-key MGET/MSET sent as one GET/SET per key (see
   * {@link Planner#ONE_KEY_COMMANDS}).
   */
  record Part(
      Object key,
      List<Host> candidates,
      CommandArguments args,
      int[] positions,
      List<CommandArguments> pieces,
      boolean oneKeyPieces) {
    Part(Object key, List<Host> candidates, CommandArguments args, int[] positions) {
      this(key, candidates, args, positions, null, false);
    }

    Part(
        Object key,
        List<Host> candidates,
        CommandArguments args,
        int[] positions,
        List<CommandArguments> pieces) {
      this(key, candidates, args, positions, pieces, false);
    }

    Host owner() {
      return candidates.get(0);
    }

    /** The commands sent for this part, in order. */
    List<CommandArguments> commands() {
      return pieces != null ? pieces : List.of(args);
    }

    /**
     * The pieces' replies as the original command would have had them: MGET answers nil for a key
     * that holds no string, where the GET sent in its place answers WRONGTYPE.
     */
    List<Object> asOriginal(List<Object> replies) {
      if (!oneKeyPieces) {
        return replies;
      }
      List<Object> values = replies.subList(0, replies.size() - 1);
      if (values.stream()
          .anyMatch(
              r -> r != null && !(r instanceof byte[]) && !(r instanceof JedisDataException))) {
        // One reply per command but of the wrong type: Plan#merge names the command and the node.
        return new ArrayList<>(values);
      }
      Object sync = replies.get(replies.size() - 1);
      if (!(sync instanceof byte[] b) || !"PONG".equals(new String(b, StandardCharsets.US_ASCII))) {
        throw new JedisConnectionException("replies from " + owner()
            + " out of step with the commands sent: the closing PING got " + describeReply(sync));
      }
      List<Object> out = new ArrayList<>(values.size());
      for (Object r : values) {
        out.add(wrongType(r) ? null : r);
      }
      return out;
    }

    private static boolean wrongType(Object reply) {
      return reply instanceof JedisDataException e
          && e.getMessage() != null
          && e.getMessage().startsWith("WRONGTYPE");
    }

    /** This part's reply from the replies of {@link #commands()}: the pieces' replies merged; an error reply wins. */
    Object combine(Merge merge, List<Object> replies) {
      if (pieces == null) {
        return replies.get(0);
      }
      for (Object r : replies) {
        if (r instanceof JedisDataException) {
          return r;
        }
      }
      if (oneKeyPieces) { // GETs in the order of this part's keys, or SETs that all answered OK
        return merge == Merge.CONCAT ? new ArrayList<>(replies) : replies.get(0);
      }
      return mergeAll(merge, replies);
    }
  }

  final Spec spec;
  final List<Part> parts;
  final ValueCodec decoder; // null: the reply carries no stored values
  final List<Object> keys; // the command's keys, to name one in a decoding error
  final int resultSize; // CONCAT of SPLIT: number of keys (merge by position)

  Plan(Spec spec, List<Part> parts, ValueCodec decoder, List<Object> keys, int resultSize) {
    this.spec = spec;
    this.parts = parts;
    this.decoder = decoder;
    this.keys = keys;
    this.resultSize = resultSize;
  }

  /** Merges per-part raw replies (in part order); an error reply in any part is the result. */
  Object merge(List<Object> replies) {
    for (Object r : replies) {
      if (r instanceof JedisDataException) {
        return r;
      }
    }
    Object merged;
    if (replies.size() == 1 && spec.routing() != Routing.SPLIT) {
      merged = replies.get(0);
    } else if (spec.routing() == Routing.SPLIT && spec.merge() == Merge.CONCAT) {
      Object[] out = new Object[resultSize];
      for (int p = 0; p < parts.size(); p++) {
        int[] pos = parts.get(p).positions();
        if (!(replies.get(p) instanceof List<?> values) || values.size() != pos.length) {
          throw badReply(parts.get(p), replies.get(p), "a list of " + pos.length + " values");
        }
        for (int i = 0; i < pos.length; i++) {
          Object v = values.get(i);
          if (parts.get(p).oneKeyPieces() && v != null && !(v instanceof byte[])) {
            throw badReply(parts.get(p), v, "a value (the reply to the GET sent for one key)");
          }
          out[pos[i]] = v;
        }
      }
      merged = Arrays.asList(out);
    } else {
      try {
        merged = mergeAll(spec.merge(), replies);
      } catch (ClassCastException | IndexOutOfBoundsException | NullPointerException e) {
        throw badReply(parts.get(0), replies, "what " + spec.name() + " returns");
      }
    }
    if (decoder == null || !decoder.decoding()) {
      return merged;
    }
    // MGET's i-th value is the i-th key's; every other value reply belongs to the first key.
    boolean perKey = spec.name().equals("MGET");
    return decoder.decodeReply(
        merged, i -> keys.isEmpty() ? null : keys.get(perKey && i < keys.size() ? i : 0));
  }

  /** A node answered with something this command never returns: a typed error, not a cast failure deep inside. */
  private UnreadableReplyException badReply(Part part, Object reply, String expected) {
    return new UnreadableReplyException(spec.name() + ": the reply from " + part.owner()
        + " is not " + expected + " but " + describeReply(reply));
  }

  /** A short description of a raw reply for error messages (type and size, not the stored data). */
  static String describeReply(Object r) {
    if (r == null) return "a null reply";
    if (r instanceof byte[] b) return "a string of " + b.length + " bytes";
    if (r instanceof Long l) return "the integer " + l;
    if (r instanceof List<?> l) return "a list of " + l.size() + " elements";
    return "a " + r.getClass().getSimpleName();
  }

  static Object mergeAll(Merge merge, List<Object> replies) {
    switch (merge) {
      case SUM: {
        long sum = 0;
        for (Object r : replies) {
          sum += (Long) r;
        }
        return sum;
      }
      case CONCAT: {
        List<Object> all = new ArrayList<>();
        for (Object r : replies) {
          all.addAll((List<?>) r);
        }
        return all;
      }
      case ALL_TRUE: {
        List<Object> out = null;
        for (Object r : replies) {
          List<?> l = (List<?>) r;
          if (out == null) {
            out = new ArrayList<>(l);
          } else {
            for (int i = 0; i < l.size(); i++) {
              if (((Long) l.get(i)) == 0L) {
                out.set(i, 0L);
              }
            }
          }
        }
        return out;
      }
      default:
        return replies.get(0);
    }
  }
}
