package io.dyno.companion.diff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A transcript reads back as written, and one changed by hand is refused, naming the file and the way out. */
class TranscriptChecksumTest {
  private static final Transcript RECORDED = new Transcript(
      "example",
      "dynomite v0.6.21-rc2-22-g2046b05, redis 7.0.15",
      "2026-11-24",
      List.of(
          new Transcript.Recorded("GET a missing key", "$-1\\r\\n"),
          new Transcript.Recorded("a bad level", "<closed, no reply>")));

  @Test
  void aRenderedTranscriptReadsBackTheSame() {
    assertThat(Transcript.parse("example", RECORDED.render("an example", "3 racks x 2 nodes")))
        .isEqualTo(RECORDED);
  }

  @Test
  void anAnswerEditedByHandIsRefused() {
    String edited = RECORDED.render("an example", "3 racks x 2 nodes").replace("$-1", "$0");
    assertThatThrownBy(() -> Transcript.parse("example", edited))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("example.transcript does not match the checksum its recorder wrote")
        .hasMessageContaining(
            "re-recorded against a real Dynomite (scripts/record-transcripts.sh)");
  }

  @Test
  void aServerLineEditedByHandIsRefused() {
    String edited =
        RECORDED.render("an example", "3 racks x 2 nodes").replace("v0.6.21", "v0.6.22");
    assertThatThrownBy(() -> Transcript.parse("example", edited))
        .hasMessageContaining("edited by hand");
  }

  @Test
  void everyCommittedTranscriptPassesItsChecksum() {
    for (Conversation c : Conversation.all()) {
      Transcript t = Transcript.load(c.name());
      assertThat(t.steps()).as(c.name()).hasSameSizeAs(c.steps());
      assertThat(t.server()).as(c.name()).startsWith("dynomite v");
    }
  }
}
