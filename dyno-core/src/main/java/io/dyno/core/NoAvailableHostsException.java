package io.dyno.core;

/** No node could take a command: the topology is empty, or every candidate was refused (each reason is a suppressed exception). */
public class NoAvailableHostsException extends DynoException {
  /**
   * Creates the exception.
   *
   * @param message why no node could take the command
   */
  public NoAvailableHostsException(String message) {
    super(message);
  }

  /**
   * Creates the exception.
   *
   * @param message why no node could take the command
   * @param cause the last candidate's refusal
   */
  public NoAvailableHostsException(String message, Throwable cause) {
    super(message, cause);
  }
}
