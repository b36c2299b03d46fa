package io.dyno.core;

/** No node could take a command: the topology is empty, or every candidate was refused (each reason is a suppressed exception). */
public class NoAvailableHostsException extends DynoException {
  public NoAvailableHostsException(String message) {
    super(message);
  }

  public NoAvailableHostsException(String message, Throwable cause) {
    super(message, cause);
  }
}
