package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.engine.internal.DynoExecutor;
import io.dyno.core.internal.KeyText;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.internal.CommandTable.Routing;
import io.dyno.jedis.internal.CommandTable.Spec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.Rawable;

/**
 * Turns a Jedis command into a {@link Plan}: which parts, and for each part its final candidate
 * nodes in preference order. This is where a request is routed, once: keyed parts get the
 * executor's route for their key (load-balancing applied), keyless ones its rotation over the
 * local rack; the executor only walks the lists it is given. No I/O.
 */
public final class Planner {
  /** Commands whose replies carry stored values (decoded when compressed). */
  private static final Set<String> VALUE_REPLIES = Set.of(
      "GET",
      "GETSET",
      "GETDEL",
      "GETEX",
      "SET",
      "MGET",
      "HGET",
      "HMGET",
      "HVALS",
      "HGETALL",
      "GETRANGE");

  private final CommandTable table;
  private final ValueCodec codec;

  public Planner(CommandTable table, ValueCodec codec) {
    this.table = table;
    this.codec = codec;
  }

  public CommandTable table() {
    return table;
  }

  Plan plan(CommandArguments args, DynoExecutor<?> routes) {
    Topology topology = routes.topology();
    Spec spec = table.classify(args);
    ValueCodec decode =
        VALUE_REPLIES.contains(spec.name()) && !spec.name().equals("GETRANGE") ? codec : null;
    switch (spec.routing()) {
      case ANY_NODE:
        return new Plan(
            spec,
            List.of(new Plan.Part(null, routes.routeKeyless(), args, null)),
            null,
            List.of(),
            0);
      case EVERY_NODE: {
        List<Plan.Part> parts = new ArrayList<>();
        for (Host h : topology.hosts()) {
          parts.add(new Plan.Part(null, List.of(h), args, null));
        }
        return new Plan(spec, parts, null, List.of(), 0);
      }
      case EVERY_RANGE: {
        List<Plan.Part> parts = new ArrayList<>();
        for (Topology.TokenRange r : topology.tokenRanges()) {
          parts.add(new Plan.Part(null, r.replicas(), args, null));
        }
        return new Plan(spec, parts, null, List.of(), 0);
      }
      default:
        break;
    }
    List<Object> keys = args.getKeys();
    if (keys.isEmpty()) {
      throw table.refusals().unsupported(spec.name(), "it names no key, so no node owns it");
    }
    Object first = keys.get(0);
    if (spec.routing() == Routing.KEYED || keys.size() == 1) {
      if (keys.size() > 1) {
        Host owner = owner(topology, first);
        for (int i = 1; i < keys.size(); i++) {
          if (!owner(topology, keys.get(i)).equals(owner)) {
            throw table.refusals().crossNodeKeys(spec.name(), first, keys.get(i));
          }
        }
      }
      List<Host> firstReplicas = route(routes, first);
      CommandArguments sent = codec.compressing() ? compressValues(spec.name(), args) : args;
      List<CommandArguments> pieces =
          spec.splitStride() > 0 ? pieces(sent, first, spec.splitStride()) : null;
      if (spec.routing()
          == Routing.SPLIT) { // one key of a multi-key command (MGET k): merged by position
        return new Plan(
            spec,
            List.of(new Plan.Part(first, firstReplicas, sent, identity(1), pieces)),
            decode,
            keys,
            1);
      }
      return new Plan(
          spec, List.of(new Plan.Part(first, firstReplicas, sent, null, pieces)), decode, keys, 0);
    }
    return split(spec, args, keys, routes, decode);
  }

  /**
   * Multi-key commands Dynomite mishandles, sent through it as one single-key command per key
   * (pipelined per owner) instead. Probed on v0.6.21 (1 node, raw RESP): an MGET whose reply passes
   * Dynomite's 16 KiB buffer comes back corrupt (20 x 1 KiB values: the reply stream out of step;
   * 5 x 4 KB: zero bytes in it; 2 x 100 KB: the node crashes), and an MSET whose values straddle
   * its read buffers is refused ({@code MSET/MGET/SCAN payload too large}; 20 x 1 KiB) or crashes
   * the node (20 x 20 KiB). Values of any size are served by GET and SET. The reply is what the
   * multi-key command answers (MGET's nil for a key of another type included); what is lost is
   * MSET's atomicity on one node, which Dynomite does not give across nodes anyway. DEL and EXISTS
   * carry no values and stay multi-key. Straight to Redis (datastore mode) nothing is split.
   */
  static final Map<String, String> ONE_KEY_COMMANDS = Map.of("MGET", "GET", "MSET", "SET");

  private Plan split(
      Spec spec,
      CommandArguments args,
      List<Object> keys,
      DynoExecutor<?> routes,
      ValueCodec decode) {
    int stride = spec.keyStride();
    Topology topology = routes.topology();
    // For MSET the values follow their keys: args = [MSET, k1, v1, k2, v2 ...].
    // Keys are grouped by the node that owns them; each group is routed by its first key.
    Map<Host, List<Integer>> groups = new LinkedHashMap<>();
    Map<Host, List<Host>> candidates = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      Object key = keys.get(i);
      Host owner = owner(topology, key);
      List<Integer> group = groups.computeIfAbsent(owner, h -> new ArrayList<>());
      if (group.isEmpty()) {
        candidates.put(owner, route(routes, key));
      }
      group.add(i);
    }
    String oneKey =
        table.mode() == CommandTable.Mode.DYNOMITE ? ONE_KEY_COMMANDS.get(spec.name()) : null;
    if (groups.size() == 1 && oneKey == null) {
      CommandArguments sent = codec.compressing() ? compressValues(spec.name(), args) : args;
      Plan.Part only = new Plan.Part(
          keys.get(0), candidates.values().iterator().next(), sent, identity(keys.size()));
      return new Plan(spec, List.of(only), decode, keys, keys.size());
    }
    List<Plan.Part> parts = new ArrayList<>(groups.size());
    for (Map.Entry<Host, List<Integer>> g : groups.entrySet()) {
      List<Integer> idx = g.getValue();
      CommandArguments part = new CommandArguments(args.getCommand());
      List<CommandArguments> pieces = oneKey != null ? new ArrayList<>(idx.size()) : null;
      int[] positions = new int[idx.size()];
      for (int j = 0; j < idx.size(); j++) {
        int k = idx.get(j);
        positions[j] = k;
        CommandArguments target = part;
        if (pieces != null) {
          target = new CommandArguments(Protocol.Command.valueOf(oneKey));
          pieces.add(target);
        }
        target.key(keys.get(k));
        for (int extra = 1; extra < stride; extra++) {
          byte[] value = args.get(1 + k * stride + extra).getRaw();
          target.add(codec.compressing() ? codec.encode(value) : value);
        }
      }
      if (pieces != null) {
        // A PING closes the batch: its PONG proves the replies read were the ones asked for, so a
        // connection left out of step (stray bytes from a misbehaving server arriving after the
        // last reply) is discarded here instead of handing them to the next borrower.
        pieces.add(new CommandArguments(Protocol.Command.PING));
      }
      parts.add(new Plan.Part(
          keys.get(idx.get(0)),
          candidates.get(g.getKey()),
          part,
          positions,
          pieces,
          pieces != null));
    }
    return new Plan(spec, parts, decode, keys, keys.size());
  }

  /** One command per {@code stride} arguments after the key: [C, key, a1, b1, a2, b2] -> [C, key, a1, b1], [C, key, a2, b2]. */
  static List<CommandArguments> pieces(CommandArguments args, Object key, int stride) {
    List<CommandArguments> out = new ArrayList<>((args.size() - 2) / stride);
    for (int i = 2; i + stride <= args.size(); i += stride) {
      CommandArguments piece = new CommandArguments(args.getCommand()).key(key);
      for (int j = 0; j < stride; j++) {
        piece.add(args.get(i + j).getRaw());
      }
      out.add(piece);
    }
    return out;
  }

  /** Builds the per-key sub-command of a SPLIT write restricted to {@code selected} key indices (shadow writes). */
  static CommandArguments subset(Spec spec, CommandArguments args, List<Integer> selected) {
    CommandArguments part = new CommandArguments(args.getCommand());
    List<Object> keys = args.getKeys();
    int stride = spec.keyStride();
    for (int k : selected) {
      part.key(keys.get(k));
      for (int extra = 1; extra < stride; extra++) {
        part.add(args.get(1 + k * stride + extra).getRaw());
      }
    }
    return part;
  }

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  /** The node of the local rack (or the first rack) that owns {@code key}'s token: the grouping of split commands. */
  static Host owner(Topology topology, Object key) {
    List<Host> r =
        key instanceof byte[] b ? topology.replicas(b) : topology.replicas(String.valueOf(key));
    if (r.isEmpty()) {
      throw new NoAvailableHostsException("no node owns key " + KeyText.show(key));
    }
    return r.get(0);
  }

  /** The key's candidates, as the executor routes them (hash tag and load-balancing applied). */
  static List<Host> route(DynoExecutor<?> routes, Object key) {
    return key instanceof byte[] b ? routes.route(b) : routes.route(String.valueOf(key));
  }

  /** Value argument positions (command at 0) of the commands whose stored values are compressed. */
  private CommandArguments compressValues(String name, CommandArguments args) {
    int from;
    int step;
    switch (name) {
      case "SET":
      case "SETNX":
      case "GETSET":
      case "MSET":
        from = 2;
        step = name.equals("MSET") ? 2 : Integer.MAX_VALUE;
        break;
      case "SETEX":
      case "PSETEX":
      case "HSETNX":
        from = 3;
        step = Integer.MAX_VALUE;
        break;
      case "HSET":
      case "HMSET":
        from = 3;
        step = 2;
        break;
      default:
        return args;
    }
    CommandArguments out = new CommandArguments(args.getCommand());
    int i = 0;
    for (Rawable r : args) {
      if (i > 0) {
        boolean value = i >= from && (i - from) % step == 0;
        out.add(value ? codec.encode(r.getRaw()) : r.getRaw());
      }
      i++;
    }
    return out;
  }
}
