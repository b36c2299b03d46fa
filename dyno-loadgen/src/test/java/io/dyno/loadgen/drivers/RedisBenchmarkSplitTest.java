package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** "40 clients over 6 nodes" means 40 (7, 7, 7, 7, 6, 6), not 6 x 6 = 36. */
class RedisBenchmarkSplitTest {

  @Test
  void clientsAreSplitOverTheNodesWithoutLosingTheRemainder() {
    assertThat(RedisBenchmark.split(40, 6)).containsExactly(7, 7, 7, 7, 6, 6);
    assertThat(Arrays.stream(RedisBenchmark.split(40, 6)).sum()).isEqualTo(40);
    assertThat(RedisBenchmark.split(6, 6)).containsExactly(1, 1, 1, 1, 1, 1);
  }
}
