package io.dyno.companion.diff;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.dyno.companion.dynomite.DynomiteAssumptions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * Where a real Dynomite binary is given: every conversation recorded afresh must match its committed
 * transcript step for step (a Dynomite build that answers differently, or a conversation changed
 * without re-recording, shows here by step name). The recorder writes nothing in this test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealDynomiteTranscriptTest {
  private DynomiteTarget real;
  private Conversation.Shape realShape;

  @BeforeAll
  void start() {
    DynomiteAssumptions.assumeBinary();
  }

  /** A real cluster of the conversation's shape: one at a time, the last one kept. */
  private DynomiteTarget realFor(Conversation c) {
    if (realShape != c.shape()) {
      if (real != null) {
        real.close();
      }
      real = null;
      real = TranscriptRecorder.startReal(c.shape());
      realShape = c.shape();
    }
    return real;
  }

  @AfterAll
  void stop() {
    if (real != null) {
      real.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> theRealServerStillAnswersWhatWasRecorded() {
    return TranscriptRecorder.chosen(System.getProperty("dyno.replay.only", "")).stream()
        .map(c -> dynamicTest(c.name(), () -> {
          Transcript committed = Transcript.load(c.name());
          List<String> problems = TranscriptReplayTest.differences(
              c, committed, TranscriptRecorder.record(c, realFor(c)), List.of(), "now");
          if (!problems.isEmpty()) {
            fail(Transcript.fileName(c.name()) + " (" + committed.server()
                + ") does not match this Dynomite ("
                + TranscriptRecorder.serverVersion(real)
                + "); re-record if the change is expected:\n"
                + String.join("\n", problems));
          }
        }));
  }
}
