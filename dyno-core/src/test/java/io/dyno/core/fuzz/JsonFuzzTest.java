package io.dyno.core.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.core.internal.json.Json;
import io.dyno.core.internal.json.JsonException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * dyno-core's JSON reader on arbitrary text. Property: a value made only of the documented Java
 * types, or a {@link JsonException} that says where (offset/line/column) and what; never another
 * exception, never a stack overflow (depth is capped).
 */
class JsonFuzzTest {
  @FuzzTest(maxDuration = "10s")
  void json(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    Object v;
    try {
      v = Json.parse(text);
    } catch (JsonException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    checkTypes(v, 0);
  }

  private static void checkTypes(Object v, int depth) {
    assertThat(depth).isLessThanOrEqualTo(512);
    if (v == null
        || v instanceof String
        || v instanceof Long
        || v instanceof Double
        || v instanceof Boolean) {
      if (v instanceof Double d) {
        assertThat(d.isNaN()).as("NaN from JSON").isFalse();
      }
      return;
    }
    if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        assertThat(e.getKey()).isInstanceOf(String.class);
        checkTypes(e.getValue(), depth + 1);
      }
      return;
    }
    if (v instanceof List<?> l) {
      for (Object o : l) {
        checkTypes(o, depth + 1);
      }
      return;
    }
    throw new AssertionError("unexpected type " + v.getClass());
  }
}
