package io.dyno.spring.internal;

/** The Jedis on the class path is older than the one Dyno is built with ({@link JedisVersion}). */
public final class JedisVersionException extends IllegalStateException {
  private final String found;
  private final String required;

  /**
   * Creates the exception.
   *
   * @param found the Jedis version on the class path
   * @param required the Jedis version Dyno needs
   */
  public JedisVersionException(String found, String required) {
    super(JedisVersionFailureAnalyzer.description(found, required));
    this.found = found;
    this.required = required;
  }

  public String found() {
    return found;
  }

  public String required() {
    return required;
  }
}
