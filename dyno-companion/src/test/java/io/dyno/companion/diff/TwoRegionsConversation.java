package io.dyno.companion.diff;

import static io.dyno.companion.diff.Steps.act;
import static io.dyno.companion.diff.Steps.awaitValue;
import static io.dyno.companion.diff.Steps.http;
import static io.dyno.companion.diff.Steps.httpFields;
import static io.dyno.companion.diff.Steps.redisState;
import static io.dyno.companion.diff.Steps.resp;
import static io.dyno.companion.diff.Steps.respSeq;
import static io.dyno.companion.diff.Wire.cmd;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Two datacenters, dc1 and dc2 (docs/multi-region.md): a write taken in dc1 read back through every
 * rack of dc2, each consistency level with both datacenters up ({@code DC_EACH_SAFE_QUORUM} among
 * them) and with every dc2 node unreachable, the admin endpoints' view of both, and what a write
 * made while dc2 was away left in dc2 once it is back.
 */
final class TwoRegionsConversation {
  /** Nodes by index: dc1 is 0..5, dc2 6..11, rack by rack; {foo} is owned by the even ones. */
  private static final int DC1_RACK1_FOO = 0;

  private static final int DC2_RACK1_FOO = 6;
  private static final int DC2_FIRST = 6;
  private static final int NODES = 12;
  private static final String CC = "DYNO_CONFIG:CONN_CONSISTENCY";
  private static final List<String> LEVELS =
      List.of("DC_ONE", "DC_QUORUM", "DC_SAFE_QUORUM", "DC_EACH_SAFE_QUORUM");

  private TwoRegionsConversation() {}

  static Conversation conversation() {
    return new Conversation(
        "two-regions",
        "a write in dc1 read in every rack of dc2, each consistency level with both datacenters up "
            + "and with dc2 unreachable, the admin endpoints' view of two datacenters",
        Conversation.Shape.TWO_DATACENTERS,
        t -> {
          Steps.flushAll(t);
          t.awaitReplicating();
        },
        steps());
  }

  private static List<Step> steps() {
    List<Step> c = new ArrayList<>();
    c.add(resp(
        "a write in dc1",
        DC1_RACK1_FOO,
        cmd("SET", "{foo}r", "from-dc1"),
        cmd("SET", "{bar}r", "from-dc1")));
    c.add(redisState(
        "the write in every rack's Redis of both datacenters",
        t -> everyOwner(t, "{foo}r", 0) + " " + everyOwner(t, "{bar}r", 1)));
    for (int rack = 0; rack < 3; rack++) {
      int node = DC2_FIRST + 2 * rack;
      c.add(resp(
          "read back through dc2 rack" + (rack + 1) + " (owner, then forwarded in its rack)",
          node,
          cmd("GET", "{foo}r"),
          cmd("GET", "{bar}r")));
    }

    for (String level : LEVELS) {
      c.add(respSeq(
          level + " with both datacenters up, through dc1",
          DC1_RACK1_FOO,
          List.of(
              cmd(CC, level),
              cmd("SET", "{foo}up-" + level, "v"),
              cmd("GET", "{foo}up-" + level),
              cmd("GET", "{foo}r"))));
    }
    c.add(respSeq(
        "DC_EACH_SAFE_QUORUM with both datacenters up, through dc2",
        DC2_RACK1_FOO,
        List.of(cmd(CC, "DC_EACH_SAFE_QUORUM"), cmd("GET", "{foo}r"), cmd("SET", "{foo}r2", "v"))));
    c.add(redisState(
        "where the DC_EACH_SAFE_QUORUM writes were stored",
        t -> everyOwner(t, "{foo}up-DC_EACH_SAFE_QUORUM", 0) + " " + everyOwner(t, "{foo}r2", 0)));

    c.add(
        http("/cluster_describe from dc1 (peer ports named)", DC1_RACK1_FOO, "/cluster_describe"));
    c.add(
        http("/cluster_describe from dc2 (peer ports named)", DC2_RACK1_FOO, "/cluster_describe"));
    c.add(httpFields("/info of a dc1 node: where it is", DC1_RACK1_FOO, "/info", "dc", "rack"));
    c.add(httpFields("/info of a dc2 node: where it is", DC2_RACK1_FOO, "/info", "dc", "rack"));
    c.add(http("/info of a dc2 node (key names and nesting)", DC2_RACK1_FOO, "/info"));
    c.add(http("/state/get_state of a dc2 node", DC2_RACK1_FOO, "/state/get_state"));

    c.add(act("kill dc2 rack1's {foo} owner", t -> t.kill(DC2_RACK1_FOO)));
    c.add(respSeq(
        "DC_EACH_SAFE_QUORUM with one dc2 rack's owner down",
        DC1_RACK1_FOO,
        List.of(cmd(CC, "DC_EACH_SAFE_QUORUM"), cmd("GET", "{foo}r"), cmd("SET", "{foo}r3", "v"))));
    c.add(act("kill every dc2 node (their proxies; their Redis keep their data)", t -> {
      for (int i = DC2_FIRST; i < NODES; i++) {
        t.kill(i);
      }
    }));
    for (String level : LEVELS) {
      c.add(respSeq(
          level + " with dc2 unreachable",
          DC1_RACK1_FOO,
          List.of(
              cmd(CC, level),
              cmd("SET", "{foo}down-" + level, "v"),
              cmd("GET", "{foo}down-" + level),
              cmd("GET", "{foo}r"))));
    }
    c.add(resp(
        "a new value for a key of both datacenters, dc2 unreachable",
        DC1_RACK1_FOO,
        cmd("SET", "{foo}r", "while-dc2-away")));
    c.add(http(
        "/cluster_describe with dc2 unreachable (peer ports named)",
        DC1_RACK1_FOO,
        "/cluster_describe"));
    c.add(http("/state/get_state with dc2 unreachable", DC1_RACK1_FOO, "/state/get_state"));

    c.add(act("start every dc2 node again", t -> {
      for (int i = DC2_FIRST; i < NODES; i++) {
        t.start(i);
      }
      t.awaitReplicating();
    }));
    c.add(redisState(
        "the key written while dc2 was away, in every rack's Redis",
        t -> everyOwner(t, "{foo}r", 0)));
    c.add(resp(
        "read back through dc2 after its return",
        DC2_RACK1_FOO,
        cmd("GET", "{foo}r"),
        cmd("GET", "{foo}down-DC_ONE")));
    return c;
  }

  /** The key's value in the Redis of each of its owners (every rack of both datacenters). */
  private static String everyOwner(Target t, String key, int tokenIndex) {
    return key + ": "
        + IntStream.range(0, t.size() / 2)
            .map(rack -> 2 * rack + tokenIndex)
            .mapToObj(node -> awaitValue(t, key, node))
            .collect(Collectors.joining(" "));
  }
}
