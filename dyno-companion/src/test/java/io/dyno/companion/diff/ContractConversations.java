package io.dyno.companion.diff;

import static io.dyno.companion.diff.Steps.WAIT;
import static io.dyno.companion.diff.Steps.act;
import static io.dyno.companion.diff.Steps.awaitValue;
import static io.dyno.companion.diff.Steps.redisState;
import static io.dyno.companion.diff.Steps.resp;
import static io.dyno.companion.diff.Steps.respSeq;
import static io.dyno.companion.diff.Wire.cmd;

import io.dyno.core.internal.KnownCommands;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversations that pin down one part of the server contract each: which command shapes are
 * served, multi-key commands within Dynomite's 16 KiB buffer, and the error replies of a broken
 * cluster (storage down, peer down, quorum lost or not reached, bad consistency level).
 */
final class ContractConversations {
  /** Nodes by index (rack by rack, token order): {foo} is owned by 0, 2, 4; {bar} by 1, 3, 5. */
  private static final int RACK1_FOO = 0;

  private static final int RACK1_BAR = 1;
  private static final int RACK2_FOO = 2;
  private static final int RACK3_FOO = 4;
  private static final String CC = "DYNO_CONFIG:CONN_CONSISTENCY";

  private ContractConversations() {}

  /**
   * Every shape of the client's command table (dyno-core {@code commands.txt}), sent alone
   * on a new connection with a PING behind it: served (with the reply's kind, or an error's text),
   * closed, silent, or answered out of step.
   */
  static Conversation commandShapes() {
    List<Step> steps = new ArrayList<>();
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        steps.add(new Step(String.join(" ", shape), t -> {
          String got = ShapeProbe.probe(t.clientPort(RACK1_FOO), shape);
          if (!got.startsWith("served")) {
            // after some refusals real Dynomite fails requests to its Redis for a while
            ShapeProbe.awaitServing(t, RACK1_FOO);
          }
          return got;
        }));
      }
    }
    return new Conversation(
        "command-shapes",
        "every command and argument shape in commands.txt",
        t -> {
          Steps.flushAll(t);
          Wire.exchange(t.clientPort(RACK1_FOO), cmd("SET", ShapeProbe.PROBE_KEY, "p"), 1, 10_000);
        },
        steps);
  }

  /** MSET, MGET, EXISTS and DEL over keys of every node, requests and replies within 16 KiB. */
  static Conversation multiKey() {
    List<String> mset = new ArrayList<>(List.of("MSET"));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      keys.add("mk:" + i);
      mset.add("mk:" + i);
      mset.add(i + ":" + "v".repeat(1000));
    }
    List<String> mget = new ArrayList<>(List.of("MGET"));
    mget.addAll(keys);
    mget.add("mk:missing");
    List<String> small = new ArrayList<>(List.of("MGET"));
    for (int i = 0; i < 200; i++) {
      small.add("sk:" + i);
    }
    List<String> smallSet = new ArrayList<>(List.of("MSET"));
    for (int i = 0; i < 200; i += 2) {
      smallSet.add("sk:" + i);
      smallSet.add("s" + i);
    }
    List<String> exists = new ArrayList<>(List.of("EXISTS"));
    exists.addAll(keys);
    List<String> del = new ArrayList<>(List.of("DEL"));
    del.addAll(keys);
    List<Step> steps = new ArrayList<>();
    for (int via : new int[] {RACK1_FOO, RACK1_BAR}) {
      steps.add(resp(
          "12 values of 1000 bytes over every node via node " + via,
          via,
          cmd(mset),
          cmd(mget),
          cmd(exists),
          cmd(del),
          cmd(mget)));
      steps.add(resp(
          "200 small keys, half of them set, via node " + via, via, cmd(smallSet), cmd(small)));
    }
    steps.add(redisState("what every node's Redis holds", Steps::keysPerNode));
    return new Conversation(
        "multi-key",
        "MSET/MGET/EXISTS/DEL across nodes within Dynomite's 16 KiB buffer",
        Steps::flushAll,
        steps);
  }

  /**
   * The error replies of a broken cluster, each fault repaired before the next: the local Redis
   * killed, the local owner's proxy killed, two of three racks' owners killed, replicas that
   * disagree, a bad consistency level.
   */
  static Conversation errors() {
    List<Step> steps = new ArrayList<>();
    steps.add(resp("seed values", RACK1_FOO, cmd("SET", "{foo}e", "1"), cmd("SET", "{bar}e", "2")));
    steps.add(redisState(
        "seed values in every rack",
        t -> awaitEverywhere(t, "{foo}e") + " " + awaitEverywhere(t, "{bar}e")));

    steps.add(act("kill the Redis of rack1's {foo} owner", t -> t.killRedis(RACK1_FOO)));
    steps.add(resp(
        "storage down: reads and writes at DC_ONE",
        RACK1_FOO,
        cmd("GET", "{foo}e"),
        cmd("SET", "{foo}sd", "written"),
        cmd("GET", "{bar}e"),
        cmd("PING")));
    steps.add(respSeq(
        "storage down: the same key at DC_QUORUM",
        RACK1_FOO,
        List.of(cmd(CC, "DC_QUORUM"), cmd("GET", "{foo}e"), cmd("SET", "{foo}sq", "q"))));
    steps.add(redisState(
        "storage down: what the other racks got of the refused write",
        t -> awaitValue(t, "{foo}sd", RACK2_FOO) + " " + awaitValue(t, "{foo}sd", RACK3_FOO)));
    steps.add(act("restart that Redis", t -> {
      t.startRedis(RACK1_FOO);
      ShapeProbe.awaitServing(t, RACK1_FOO);
    }));

    steps.add(act("kill rack1's {bar} owner (its proxy)", t -> t.kill(RACK1_BAR)));
    steps.add(resp(
        "peer down: its keys through the other rack1 node",
        RACK1_FOO,
        cmd("GET", "{bar}e"),
        cmd("SET", "{bar}pd", "v"),
        cmd("GET", "{foo}e")));
    steps.add(respSeq(
        "peer down: its keys at DC_QUORUM",
        RACK1_FOO,
        List.of(cmd(CC, "DC_QUORUM"), cmd("GET", "{bar}e"))));
    steps.add(act("restart it", t -> {
      t.start(RACK1_BAR);
      t.awaitReplicating();
    }));

    steps.add(act("kill the {foo} owners of rack2 and rack3", t -> {
      t.kill(RACK2_FOO);
      t.kill(RACK3_FOO);
    }));
    steps.add(respSeq(
        "two racks down: DC_ONE",
        RACK1_FOO,
        List.of(cmd("GET", "{foo}e"), cmd("SET", "{foo}t", "1"))));
    for (String level : List.of("DC_QUORUM", "DC_SAFE_QUORUM")) {
      steps.add(respSeq(
          "two racks down: " + level,
          RACK1_FOO,
          List.of(cmd(CC, level), cmd("GET", "{foo}e"), cmd("SET", "{foo}t", "2"))));
    }
    steps.add(act("restart them", t -> {
      t.start(RACK2_FOO);
      t.start(RACK3_FOO);
      t.awaitReplicating();
      awaitPeersOf(t, RACK1_FOO);
    }));

    steps.add(act("replicas disagree: a different value in each rack's Redis", t -> {
      for (int[] nv : new int[][] {{RACK1_FOO, 'a'}, {RACK2_FOO, 'b'}, {RACK3_FOO, 'c'}}) {
        Wire.exchange(
            t.redisPort(nv[0]), cmd("SET", "{foo}dis", String.valueOf((char) nv[1])), 1, WAIT);
      }
    }));
    for (String level : List.of("DC_ONE", "DC_QUORUM", "DC_SAFE_QUORUM")) {
      steps.add(respSeq(
          "replicas disagree: GET at " + level,
          RACK1_FOO,
          List.of(cmd(CC, level), cmd("GET", "{foo}dis"))));
    }
    steps.add(resp("a bad consistency level", RACK1_FOO, cmd(CC, "DC_NONE")));
    return new Conversation(
        "errors",
        "error replies: storage down, peer down, quorum lost, replicas disagreeing, "
            + "bad consistency level",
        t -> {
          Steps.flushAll(t);
          t.awaitReplicating();
        },
        steps);
  }

  /** The key's value in every rack's Redis once it is there (bounded: what is there after 5 s). */
  private static String awaitEverywhere(Target t, String key) {
    String owners = key.startsWith("{foo}") ? "0,2,4" : "1,3,5";
    StringBuilder sb = new StringBuilder(key).append(':');
    for (String n : owners.split(",")) {
      sb.append(' ').append(awaitValue(t, key, Integer.parseInt(n)));
    }
    return sb.toString();
  }

  /**
   * Polls (bounded) until {@code node} reaches every rack's owner of {foo} again: a quorum read
   * through it no longer answers "Peer Node is not connected". Replication coming back (a write
   * through any node seen everywhere) does not mean this node's own peer links are up yet: real
   * Dynomite reconnects each link on its own schedule.
   */
  private static void awaitPeersOf(Target t, int node) {
    ByteArrayOutputStream both = new ByteArrayOutputStream();
    both.writeBytes(cmd(CC, "DC_SAFE_QUORUM"));
    both.writeBytes(cmd("GET", "{foo}probe"));
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      String got =
          Wire.exchange(t.clientPort(node), both.toByteArray(), 2, WAIT).describe(WAIT);
      if (!got.contains("not connected") || System.nanoTime() > deadline) {
        return;
      }
      Wire.pause(100); // poll interval of a bounded wait
    }
  }

  /** Probes one command shape the way the client's table was established. */
  static final class ShapeProbe {
    static final String PROBE_KEY = "{t}probe";

    private ShapeProbe() {}

    static String probe(int port, List<String> shape) {
      byte[] request = Wire.concat(cmd(shape), cmd("PING"));
      Wire.Reply r = Wire.exchange(port, request, 2, 2000);
      byte[] b = r.bytes();
      int complete = Wire.completeReplies(b);
      if (b.length == 0) {
        return r.closed() ? "closes, no reply" : "no reply within 2 s";
      }
      int[] pos = {0};
      Object first = complete >= 1 ? Wire.parse(b, pos) : null;
      String kind = first == null ? "part of a reply" : describe(first);
      if (shape.get(0).equals("QUIT")) {
        return ("+OK".equals(first) ? "served " : "QUIT answered ")
            + kind
            + (r.closed() ? ", then closed" : ", not closed");
      }
      if (complete < 2) {
        return (r.closed() ? "closed" : "silent") + " after " + kind;
      }
      Object second = Wire.parse(b, pos);
      if (!"+PONG".equals(second)) {
        return "replies out of step: " + kind + " then " + describe(second);
      }
      return "served " + kind;
    }

    /** A reply's kind, with the text of simple strings and errors (deterministic, unlike values). */
    private static String describe(Object reply) {
      if (reply instanceof List<?>) {
        return "array";
      }
      String s = (String) reply;
      return switch (s.charAt(0)) {
        case '+', '-' -> s;
        case ':' -> "integer";
        default -> s.equals("$-1") ? "nil" : "bulk";
      };
    }

    /**
     * Polls (bounded) until the node serves a GET through its own Redis link again: the key is one the
     * node owns ({foo}: token 0, nodes 0, 2, 4), so the GET is not forwarded to a healthy peer.
     */
    static void awaitServing(Target t, int node) {
      long deadline = System.nanoTime() + 15_000_000_000L;
      while (true) {
        String got =
            Wire.exchange(t.clientPort(node), cmd("GET", "{foo}probe"), 1, WAIT).text();
        if (got.startsWith("$") || System.nanoTime() > deadline) {
          return;
        }
        Wire.pause(50); // poll interval of a bounded wait
      }
    }
  }
}
