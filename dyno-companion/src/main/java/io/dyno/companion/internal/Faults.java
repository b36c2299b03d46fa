package io.dyno.companion.internal;

import java.time.Duration;

/** The reply-path faults of one node; read on every request, set from tests or the admin port. */
public final class Faults {
  private volatile boolean hung;
  private volatile long delayNanos;
  private volatile String error;

  public void hang(boolean on) {
    hung = on;
  }

  public boolean hung() {
    return hung;
  }

  public void delay(Duration d) {
    delayNanos = d.toNanos();
  }

  public long delayNanos() {
    return delayNanos;
  }
  /** The error text to answer every request with (no leading '-'), or null. */
  public void failWith(String e) {
    if (e != null && (e.indexOf('\r') >= 0 || e.indexOf('\n') >= 0)) {
      throw new IllegalArgumentException("error reply must be one line, was \"" + e + "\"");
    }
    error = e == null || e.isEmpty() ? null : (e.startsWith("-") ? e.substring(1) : e);
  }

  public String error() {
    return error;
  }

  public void clear() {
    hung = false;
    delayNanos = 0;
    error = null;
  }

  @Override
  public String toString() {
    return "{\"hung\":" + hung + ",\"delay_ms\":" + delayNanos / 1_000_000 + ",\"error\":"
        + (error == null ? "null" : "\"" + error.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        + "}";
  }
}
