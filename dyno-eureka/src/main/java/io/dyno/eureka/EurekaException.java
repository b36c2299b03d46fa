package io.dyno.eureka;

import io.dyno.core.DynoException;

/**
 * No Eureka server gave a usable answer for an application. The message names every service URL
 * asked and why each failed (passwords in URLs are masked).
 */
public final class EurekaException extends DynoException {
  private final boolean applicationUnknown;

  public EurekaException(String message, boolean applicationUnknown, Throwable cause) {
    super(message, cause);
    this.applicationUnknown = applicationUnknown;
  }

  /** True when every server asked answered 404: the application has no registered instance there. */
  public boolean applicationUnknown() {
    return applicationUnknown;
  }
}
