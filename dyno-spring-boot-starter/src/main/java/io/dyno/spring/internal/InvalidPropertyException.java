package io.dyno.spring.internal;

/**
 * A {@code dyno.*} property the starter cannot use. The message starts with the property (and its
 * value, where it has one); {@link DynoStartFailureAnalyzer} turns it into the start's summary.
 */
public final class InvalidPropertyException extends IllegalArgumentException {
  private final String property;

  /**
   * Creates the exception.
   *
   * @param property the property to fix, e.g. {@code dyno.hosts[2]}
   * @param message what is wrong, starting with the property
   */
  public InvalidPropertyException(String property, String message) {
    super(message);
    this.property = property;
  }

  /**
   * Creates the exception.
   *
   * @param property the property to fix, e.g. {@code dyno.pool.max-conns-per-host}
   * @param message what is wrong, starting with the property
   * @param cause Dyno's own refusal of the value
   */
  public InvalidPropertyException(String property, String message, Throwable cause) {
    super(message, cause);
    this.property = property;
  }

  /** The property to fix. */
  public String property() {
    return property;
  }
}
