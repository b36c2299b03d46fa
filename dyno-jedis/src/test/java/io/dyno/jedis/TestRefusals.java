package io.dyno.jedis;

import io.dyno.jedis.internal.PublicExceptions;

/** The client's own refusals (the public exceptions), for tests of internal classes that throw them. */
public final class TestRefusals {
  private TestRefusals() {}

  /** {@return the refusals a built client uses} */
  public static PublicExceptions api() {
    return ApiExceptions.INSTANCE;
  }
}
