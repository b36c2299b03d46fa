package io.dyno.companion.diff;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * What holds the companion to real Dynomite on every build: each transcript recorded from the real
 * server is replayed, step by step, against a companion cluster of the same shape, and every answer
 * must come out byte for byte the same, except where the README's table of kept differences names
 * the step. A row of that table whose steps no longer differ fails too, so the table stays true.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TranscriptReplayTest {
  private CompanionTarget companion;
  private Conversation.Shape companionShape;
  private List<KeptDifferences.Row> kept;

  @BeforeAll
  void start() {
    kept = KeptDifferences.read();
  }

  @AfterAll
  void stop() {
    if (companion != null) {
      companion.close();
    }
  }

  /** A companion cluster of the shape a transcript was recorded on. */
  static CompanionTarget startCompanion(Conversation.Shape shape) {
    return new CompanionTarget(CompanionCluster.builder()
        .datacenters(shape.datacenters.toArray(String[]::new))
        .racks(3)
        .nodesPerRack(2)
        .hashtag("{}")
        .backend(Backend.REDIS)
        .peerTimeout(TranscriptRecorder.PEER_TIMEOUT)
        .start());
  }

  /** The companion of the conversation's shape: one cluster at a time, the last one kept. */
  private CompanionTarget companionFor(Conversation c) {
    if (companionShape != c.shape()) {
      if (companion != null) {
        companion.close();
      }
      companion = null;
      companion = startCompanion(c.shape());
      companionShape = c.shape();
    }
    return companion;
  }

  /**
   * One test per transcript, in the order they were recorded on one cluster. {@code -Ddyno.replay.only=
   * errors,multi-key} replays only those (each conversation prepares the cluster itself), e.g. while
   * changing the companion.
   */
  @TestFactory
  Stream<DynamicTest> everyTranscriptReplaysOnTheCompanion() {
    return TranscriptRecorder.chosen(System.getProperty("dyno.replay.only", "")).stream()
        .map(c -> dynamicTest(c.name(), () -> replay(c)));
  }

  private void replay(Conversation c) {
    Transcript recorded = Transcript.load(c.name());
    List<String> problems =
        differences(c, recorded, TranscriptRecorder.record(c, companionFor(c)), kept, "companion");
    if (!problems.isEmpty()) {
      fail(Transcript.fileName(c.name()) + " (" + recorded.server() + ", recorded "
          + recorded.recorded() + "): " + problems.size()
          + " problem(s) replaying it on the companion:\n" + String.join("\n", problems));
    }
  }

  /**
   * What does not match between a transcript and a fresh run of its conversation: steps whose
   * answers differ and no kept difference covers, and kept differences whose steps all agree.
   */
  static List<String> differences(
      Conversation c,
      Transcript recorded,
      List<Transcript.Recorded> got,
      List<KeptDifferences.Row> kept,
      String who) {
    List<String> problems = new ArrayList<>();
    List<String> expectedNames =
        recorded.steps().stream().map(Transcript.Recorded::name).toList();
    List<String> names = got.stream().map(Transcript.Recorded::name).toList();
    if (!expectedNames.equals(names)) {
      problems.add(
          "the conversation's steps are not the transcript's (re-record it: scripts/record-transcripts.sh)."
              + "\n    transcript:   " + expectedNames + "\n    conversation: " + names);
      return problems;
    }
    List<KeptDifferences.Row> used = new ArrayList<>();
    for (int i = 0; i < got.size(); i++) {
      String name = names.get(i);
      String want = recorded.steps().get(i).answer();
      String have = got.get(i).answer();
      KeptDifferences.Row row =
          kept.stream().filter(r -> r.covers(c.name(), name)).findFirst().orElse(null);
      if (want.equals(have)) {
        continue;
      }
      if (row != null) {
        used.add(row);
      } else {
        problems.add("step #" + (i + 1) + " '" + name + "' differs:\n    dynomite:  " + want
            + "\n    " + who + ": " + " ".repeat(Math.max(0, 9 - who.length())) + have);
      }
    }
    for (KeptDifferences.Row r : kept) {
      boolean coversAStep = names.stream().anyMatch(n -> r.covers(c.name(), n));
      if (r.conversation().equals(c.name()) && (!coversAStep || !used.contains(r))) {
        problems.add("the README lists a kept difference for '" + c.name() + ": "
            + r.step().pattern()
            + "', but "
            + (coversAStep
                ? "those steps no longer differ: remove the row"
                : "no step has that name")
            + ":\n    "
            + r.text());
      }
    }
    return problems;
  }
}
