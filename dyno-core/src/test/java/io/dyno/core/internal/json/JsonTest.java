package io.dyno.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  @SuppressWarnings("unchecked")
  void parsesNestedDocumentWithLineBreaksIntoPlainJavaValues() {
    Object v = Json.parse(
        "{\n  \"a\": [1, -2, 3.5, 1e3, true, false, null],\r\n\t\"b\": {\"c\": \"d\"}\n}\n");
    assertThat(v).isInstanceOf(Map.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) v;
    assertThat(m.keySet()).containsExactly("a", "b");
    assertThat((List<Object>) m.get("a")).containsExactly(1L, -2L, 3.5, 1000.0, true, false, null);
    assertThat(m.get("b")).isEqualTo(Map.of("c", "d"));
  }

  @Test
  void integralNumbersAreLongsAndHugeOnesFallBackToDouble() {
    assertThat(Json.parse("4294967295")).isEqualTo(4294967295L);
    assertThat(Json.parse("-0")).isEqualTo(0L);
    assertThat(Json.parse("123456789012345678901234567890")).isInstanceOf(Double.class);
  }

  @Test
  void decodesEveryEscapeIncludingSurrogatePairs() {
    assertThat(Json.parse("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00\""))
        .isEqualTo("q\" b\\ s/ \b\f\n\r\t \u00e9 \ud83d\ude00");
  }

  @Test
  void emptyContainersAndTopLevelScalars() {
    assertThat(Json.parse("[]")).isEqualTo(List.of());
    assertThat(Json.parse(" {} ")).isEqualTo(Map.of());
    assertThat(Json.parse("\"x\"")).isEqualTo("x");
    assertThat(Json.parse("null")).isNull();
  }

  @Test
  void parseObjectAndParseArrayCheckTheTopLevelType() {
    assertThat(Json.parseArray("[1]")).containsExactly(1L);
    assertThatThrownBy(() -> Json.parseObject("[1]"))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("expected a JSON object")
        .hasMessageContaining("an array");
    assertThatThrownBy(() -> Json.parseArray("{}"))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("expected a JSON array")
        .hasMessageContaining("an object");
  }

  @Test
  void errorsNameOffsetLineAndColumn() {
    assertThatThrownBy(() -> Json.parse("{\n  \"a\": 1,\n  \"b\" 2\n}"))
        .isInstanceOf(JsonException.class)
        .hasMessageContaining("offset 18")
        .hasMessageContaining("line 3, column 7")
        .hasMessageContaining("expected ':'");
  }

  @Test
  void rejectsMalformedInputsWithAReason() {
    assertThatThrownBy(() -> Json.parse("")).hasMessageContaining("empty JSON document");
    assertThatThrownBy(() -> Json.parse("   \n")).hasMessageContaining("empty JSON document");
    assertThatThrownBy(() -> Json.parse(null)).hasMessageContaining("null");
    assertThatThrownBy(() -> Json.parse("[1, 2"))
        .hasMessageContaining("expected ',' or ']'")
        .hasMessageContaining("end of input");
    assertThatThrownBy(() -> Json.parse("[1,]")).hasMessageContaining("expected a value");
    assertThatThrownBy(() -> Json.parse("{\"a\":1,}"))
        .hasMessageContaining("expected a string key");
    assertThatThrownBy(() -> Json.parse("\"abc"))
        .hasMessageContaining("unterminated string")
        .hasMessageContaining("offset 0");
    assertThatThrownBy(() -> Json.parse("\"a\nb\""))
        .hasMessageContaining("control character U+000A");
    assertThatThrownBy(() -> Json.parse("\"\\x\"")).hasMessageContaining("invalid escape '\\x'");
    assertThatThrownBy(() -> Json.parse("\"\\u12g4\""))
        .hasMessageContaining("invalid hex digit 'g'");
    assertThatThrownBy(() -> Json.parse("01"))
        .hasMessageContaining("after the end of the JSON value");
    assertThatThrownBy(() -> Json.parse("1.")).hasMessageContaining("expected a digit after '.'");
    assertThatThrownBy(() -> Json.parse("-")).hasMessageContaining("expected a digit");
    assertThatThrownBy(() -> Json.parse("tru")).hasMessageContaining("expected 'true'");
    assertThatThrownBy(() -> Json.parse("{} {}"))
        .hasMessageContaining("after the end of the JSON value");
    assertThatThrownBy(() -> Json.parse("{\"a\":1,\"a\":2}"))
        .hasMessageContaining("duplicate key \"a\"");
    assertThatThrownBy(() -> Json.parse("[".repeat(600)))
        .hasMessageContaining("nesting deeper than 512");
  }
}
