package io.dyno.core.internal.json;

/** Malformed JSON, or JSON of an unexpected shape; the message names the position or the field. */
public final class JsonException extends IllegalArgumentException {
  public JsonException(String message) {
    super(message);
  }
}
