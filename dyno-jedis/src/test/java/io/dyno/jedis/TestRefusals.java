package io.dyno.jedis;

import io.dyno.jedis.internal.Refusals;

/** The client's own refusals (the public exceptions), for tests of internal classes that throw them. */
public final class TestRefusals {
  private TestRefusals() {}

  /** {@return the refusals a built client uses} */
  public static Refusals api() {
    return ApiRefusals.INSTANCE;
  }
}
