package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class ErrorKindsTest {

  @Test
  void failuresThatDifferOnlyInNumbersAreOneKind() {
    ErrorKinds kinds = new ErrorKinds();
    kinds.count(ErrorKinds.describe(new IOException("connection to 127.0.0.1:8102 refused")), 2);
    kinds.count(ErrorKinds.describe(new IOException("connection to 127.0.0.1:8103 refused")), 3);
    kinds.count(ErrorKinds.describe(new SocketTimeoutException(null)), 1);

    assertThat(kinds.asMap())
        .containsEntry("IOException: connection to N.N.N.N:N refused", 5L)
        .containsEntry("SocketTimeoutException", 1L)
        .hasSize(2);
  }

  @Test
  void longMessagesAreCut() {
    String text = ErrorKinds.describe(new IllegalStateException("x".repeat(500)));
    assertThat(text).isEqualTo("IllegalStateException: " + "x".repeat(160) + "...");
  }

  @Test
  void kindsBeyondTheCapAreCountedAsOther() {
    ErrorKinds kinds = new ErrorKinds();
    for (int i = 0; i < ErrorKinds.MAX_KINDS; i++) {
      kinds.count("kind " + (char) ('A' + i % 26) + (char) ('a' + i / 26), 1);
    }
    String other = kinds.count("one kind too many", 4);
    assertThat(other).isEqualTo("other (more than 50 kinds of error)");
    assertThat(kinds.count("kind Aa", 1)).isEqualTo("kind Aa"); // a known kind is still its own
    assertThat(kinds.asMap()).hasSize(ErrorKinds.MAX_KINDS + 1).containsEntry(other, 4L);
    assertThat(kinds.asMap()).containsEntry("kind Aa", 2L);
  }
}
