package io.dyno.core;

/** Base of every exception Dyno itself raises. Data errors from the server reach callers as the driver's own exceptions. */
public class DynoException extends RuntimeException {
  /**
   * Creates the exception.
   *
   * @param message what went wrong, naming the node, command, key or setting at fault
   */
  public DynoException(String message) {
    super(message);
  }

  /**
   * Creates the exception.
   *
   * @param message what went wrong, naming the node, command, key or setting at fault
   * @param cause the underlying failure
   */
  public DynoException(String message, Throwable cause) {
    super(message, cause);
  }
}
