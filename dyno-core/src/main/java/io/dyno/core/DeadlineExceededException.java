package io.dyno.core;

/**
 * A call's deadline ({@code CallOptions.withDeadline} or {@code requestDeadline}) passed before it
 * could finish; no further borrow, backoff or retry was started. The last failure, if any, is the cause.
 */
public class DeadlineExceededException extends DynoException {
  private final int attempts;

  public DeadlineExceededException(String message, int attempts, Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
  }

  /** Runs of the command that were started before the deadline passed. */
  public int attempts() { return attempts; }
}
