package io.dyno.companion.diff;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.internal.DynomiteCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The client's command table (dyno-core {@code dynomite-commands.txt}, which the client refuses by
 * and the companion closes by) against what real Dynomite answered to each shape in the recorded
 * {@code command-shapes} transcript: a shape the client lets through must be one the server served,
 * and a shape it refuses one the server did not.
 */
class CommandTableTranscriptTest {
  @Test
  void everyShapeTheClientLetsThroughWasServedByDynomiteAndNoOther() {
    Map<String, String> answered = Transcript.load("command-shapes").steps().stream()
        .collect(
            Collectors.toMap(Transcript.Recorded::name, Transcript.Recorded::answer, (a, b) -> a));
    List<String> wrong = new ArrayList<>();
    int shapes = 0;
    for (DynomiteCommands.Entry e : DynomiteCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        shapes++;
        String name = String.join(" ", shape);
        String answer = answered.get(name);
        boolean letThrough = DynomiteCommands.check(shape.stream().map(bytes()).toList()) == null;
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

  private static Function<String, byte[]> bytes() {
    return s -> s.getBytes(StandardCharsets.UTF_8);
  }
}
