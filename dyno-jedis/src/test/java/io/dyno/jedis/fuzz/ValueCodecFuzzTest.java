package io.dyno.jedis.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.core.DynoException;
import io.dyno.jedis.internal.ValueCodec;

/**
 * Stored values from any writer, decoded with every format turned on. Property: the value as
 * stored, a decoded value within maxDecompressedSize, or a {@link DynoException} naming the key;
 * never another exception, never an allocation beyond the bound. And whatever Dyno itself writes
 * reads back identical.
 */
class ValueCodecFuzzTest {
  private static final int MAX = 1 << 20;
  private static final ValueCodec READ_ALL = new ValueCodec(0, MAX, true, true);
  private static final ValueCodec COMPRESSING = new ValueCodec(16, MAX, false, false);

  @FuzzTest(maxDuration = "10s")
  void storedValues(byte[] data) {
    try {
      byte[] out = READ_ALL.decode(data, "fz");
      assertThat(out.length).isLessThanOrEqualTo(Math.max(MAX, data.length));
    } catch (DynoException e) {
      assertThat(e.getMessage()).contains("key \"fz\"");
    }
    assertThat(COMPRESSING.decode(COMPRESSING.encode(data), "fz")).isEqualTo(data);
  }
}
