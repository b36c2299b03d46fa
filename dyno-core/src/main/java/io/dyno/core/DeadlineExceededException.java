package io.dyno.core;

/**
 * A call's deadline ({@code CallOptions.withDeadline} or {@code requestDeadline}) passed before it
 * could finish; no further borrow, backoff or retry was started. The last failure, if any, is the cause.
 */
public class DeadlineExceededException extends DynoException {
  /** Runs of the command started before the deadline passed. */
  private final int attempts;

  /**
   * Creates the exception.
   *
   * @param message what the call was and how long it had
   * @param attempts runs of the command started before the deadline passed
   * @param cause the last attempt's failure, or null
   */
  public DeadlineExceededException(String message, int attempts, Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
  }

  /** {@return the runs of the command that were started before the deadline passed} */
  public int attempts() {
    return attempts;
  }
}
