package io.dyno.core.topology;

import java.util.function.Function;

/**
 * Where this client runs: its rack (availability zone) and datacenter (region). Configuration
 * wins; the environment variables {@code LOCAL_RACK} then {@code EC2_AVAILABILITY_ZONE}, and
 * {@code LOCAL_DATACENTER} then {@code EC2_REGION}, are only defaults. Either may stay null
 * (unknown): routing then spreads requests evenly and says so once.
 *
 * @param rack the rack, or null when unknown
 * @param datacenter the datacenter, or null when unknown
 */
public record Locality(String rack, String datacenter) {

  /**
   * A locality; blank values are taken as unknown (null).
   *
   * @param rack the rack, or null or blank when unknown
   * @param datacenter the datacenter, or null or blank when unknown
   */
  public Locality {
    rack = blankToNull(rack);
    datacenter = blankToNull(datacenter);
  }

  /**
   * Resolves against the process environment.
   *
   * @param configuredRack the rack the application configured, or null to use the environment's
   * @param configuredDatacenter the datacenter the application configured, or null to use the
   *     environment's
   * @return the locality; either part may be null (unknown)
   */
  public static Locality resolve(String configuredRack, String configuredDatacenter) {
    return resolve(configuredRack, configuredDatacenter, System::getenv);
  }

  /**
   * Resolves against {@code env} (a lookup such as {@code System::getenv}, injectable for tests).
   *
   * @param configuredRack the rack the application configured, or null to use {@code env}'s
   * @param configuredDatacenter the datacenter the application configured, or null to use
   *     {@code env}'s
   * @param env returns a variable's value, or null when it is not set
   * @return the locality; either part may be null (unknown)
   */
  public static Locality resolve(
      String configuredRack, String configuredDatacenter, Function<String, String> env) {
    String rack =
        firstNonBlank(configuredRack, env.apply("LOCAL_RACK"), env.apply("EC2_AVAILABILITY_ZONE"));
    String dc =
        firstNonBlank(configuredDatacenter, env.apply("LOCAL_DATACENTER"), env.apply("EC2_REGION"));
    return new Locality(rack, dc);
  }

  private static String firstNonBlank(String... values) {
    for (String v : values) {
      if (blankToNull(v) != null) return v.trim();
    }
    return null;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
