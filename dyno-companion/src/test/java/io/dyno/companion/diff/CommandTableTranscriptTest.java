package io.dyno.companion.diff;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.internal.KnownCommands;
import io.dyno.core.internal.KnownCommands.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The client's command table (dyno-core {@code commands.txt}, which the client refuses by, hedges
 * and mirrors by, and the companion closes by) against what real Dynomite answered in the recorded
 * transcripts: a shape the client lets through must be one the server served, and a shape it
 * refuses one the server did not; and a command's kind must agree with what it did to the data
 * there (a shape that stored a key, or answered +OK to a change, is no read).
 */
class CommandTableTranscriptTest {
  @Test
  void everyShapeTheClientLetsThroughWasServedByDynomiteAndNoOther() {
    Map<String, String> answered = Transcript.load("command-shapes").steps().stream()
        .collect(
            Collectors.toMap(Transcript.Recorded::name, Transcript.Recorded::answer, (a, b) -> a));
    List<String> wrong = new ArrayList<>();
    int shapes = 0;
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        shapes++;
        String name = String.join(" ", shape);
        String answer = answered.get(name);
        boolean letThrough = KnownCommands.check(shape.stream().map(bytes()).toList()) == null;
        if (answer == null) {
          wrong.add(name + ": not in the transcript (re-record it: scripts/record-transcripts.sh)");
        } else if (letThrough != answer.startsWith("served")) {
          wrong.add(name + ": the client " + (letThrough ? "lets it through" : "refuses it")
              + ", Dynomite answered: " + answer);
        }
      }
    }
    assertThat(wrong)
        .as("shapes where the client's table and the recorded server disagree")
        .isEmpty();
    assertThat(shapes).isEqualTo(answered.size());
  }

  @Test
  void aShapeThatAnsweredOkToAChangeIsNoRead() {
    Map<String, String> answered = Transcript.load("command-shapes").steps().stream()
        .collect(
            Collectors.toMap(Transcript.Recorded::name, Transcript.Recorded::answer, (a, b) -> a));
    int ok = 0;
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        if ("served +OK".equals(answered.get(String.join(" ", shape)))) {
          ok++;
          assertThat(e.kindOf(shape.stream().map(bytes()).toList()))
              .as(String.join(" ", shape) + " answered +OK")
              .isNotEqualTo(Kind.READ);
        }
      }
    }
    assertThat(ok).as("shapes answered +OK").isGreaterThan(10);
  }

  /**
   * The differential transcript's commands that read and store (as its conversation sends them, in
   * order, after an RPUSH), and the key each stores to. What every node's Redis held afterwards
   * shows which stored a key: each such shape must be a write in the table (mirrored, never hedged),
   * whether or not Dynomite replicated it (it does not for SORT ... STORE, SUNIONSTORE, ZINTERSTORE,
   * ZUNIONSTORE and GEORADIUS(BYMEMBER) ... STORE: it takes them for reads).
   */
  private static final List<List<String>> STORING = List.of(
      List.of("SORT", "{foo}src", "STORE", "{foo}sorted"),
      List.of("SUNIONSTORE", "{foo}su", "{foo}s1", "{foo}s3"),
      List.of("ZINTERSTORE", "{bar}zi", "2", "{bar}z1", "{bar}z2"),
      List.of("ZUNIONSTORE", "{bar}zu", "2", "{bar}z1", "{bar}z2"),
      List.of("GEORADIUS", "{foo}g", "15", "37", "200", "km", "STORE", "{foo}gr"),
      List.of("GEORADIUSBYMEMBER", "{foo}g", "Palermo", "200", "km", "STORE", "{foo}gm"),
      List.of("SINTERSTORE", "{foo}si", "{foo}s1", "{foo}s3"),
      List.of("SDIFFSTORE", "{foo}sd", "{foo}s1", "{foo}s3"));

  @Test
  void everyCommandThatStoredAKeyOnTheRecordedServerIsAWriteInTheTable() {
    Map<String, String> answered = Transcript.load("differential").steps().stream()
        .collect(
            Collectors.toMap(Transcript.Recorded::name, Transcript.Recorded::answer, (a, b) -> a));
    String replies = answered.get(
        "SORT/SUNIONSTORE/ZINTERSTORE/ZUNIONSTORE/GEORADIUS(BYMEMBER) STORE and real writes");
    assertThat(replies.split("\\\\r\\\\n"))
        .as("the recorded step's replies: the RPUSH and the storing commands above")
        .hasSize(1 + STORING.size());
    String held = answered.get("what every node's Redis holds");
    List<String> stored = new ArrayList<>();
    for (List<String> shape : STORING) {
      String destination = shape.get(0).startsWith("GEORADIUS") || shape.get(0).equals("SORT")
          ? shape.get(shape.size() - 1)
          : shape.get(1);
      if (!held.contains(destination + ",") && !held.contains(destination + "]")) {
        continue; // stored nothing (an empty result): says nothing of the kind
      }
      stored.add(shape.get(0));
      KnownCommands.Entry e = KnownCommands.entry(shape.get(0));
      assertThat(e.kindOf(shape.stream().map(bytes()).toList()))
          .as(String.join(" ", shape) + " stored " + destination)
          .isIn(Kind.WRITE, Kind.WHOLE_VALUE_WRITE);
      assertThat(e.kindOf(shape.stream().map(bytes()).toList()).mirrored()).isTrue();
      assertThat(e.kindOf(shape.stream().map(bytes()).toList()).hedgeable()).isFalse();
      int racks = racksHolding(held, destination);
      assertThat(racks).as(destination).isIn(1, 3);
      assertThat(e.dynomiteWrite())
          .as(shape.get(0) + " replicated by Dynomite (its result in " + racks + " racks)")
          .isEqualTo(racks == 3);
    }
    assertThat(stored).contains("SORT", "GEORADIUS", "GEORADIUSBYMEMBER", "SUNIONSTORE");
  }

  /** In how many racks' Redis {@code key} was held ({@code held}: "rack1-0: [k, ...] rack1-1: [...]"). */
  private static int racksHolding(String held, String key) {
    Set<String> racks = new HashSet<>();
    for (String node : held.strip().split("(?<=]) ")) {
      String keys = node.substring(node.indexOf('[') + 1, node.lastIndexOf(']'));
      if (List.of(keys.split(", ")).contains(key)) {
        racks.add(node.substring(0, node.indexOf('-')));
      }
    }
    return racks.size();
  }

  private static Function<String, byte[]> bytes() {
    return s -> s.getBytes(StandardCharsets.UTF_8);
  }
}
