package io.dyno.core;

/** Base of every exception Dyno itself raises. Data errors from the server reach callers as the driver's own exceptions. */
public class DynoException extends RuntimeException {
  public DynoException(String message) {
    super(message);
  }

  public DynoException(String message, Throwable cause) {
    super(message, cause);
  }
}
