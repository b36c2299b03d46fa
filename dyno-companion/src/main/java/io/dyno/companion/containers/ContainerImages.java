package io.dyno.companion.containers;

import java.util.Optional;

/**
 * The images the container helper runs, chosen by system property (or environment variable) so
 * that machines with a registry can use public images instead of the local builds.
 *
 * <p>Defaults are the {@code FROM scratch} images that {@code scripts/build-images.sh} builds
 * locally; nothing is ever pulled.
 */
public final class ContainerImages {
  /** System property naming the Redis image (env {@code DYNO_IMAGE_REDIS}), e.g. {@code redis:7}. */
  public static final String REDIS_PROPERTY = "dyno.image.redis";
  /** System property naming the companion image (env {@code DYNO_IMAGE_COMPANION}). */
  public static final String COMPANION_PROPERTY = "dyno.image.companion";
  /**
   * System property naming a real Dynomite image (env {@code DYNO_IMAGE_DYNOMITE}). No default: the
   * real-server tests run only where someone gives an image (their production one, or
   * {@value #DEFAULT_DYNOMITE} that {@code scripts/build-images.sh} builds from a given binary).
   */
  public static final String DYNOMITE_PROPERTY = "dyno.image.dynomite";
  /**
   * System property with the command that starts Dynomite inside its image, {@code {conf}} standing
   * for the generated configuration file (env {@code DYNO_DYNOMITE_COMMAND}).
   */
  public static final String DYNOMITE_COMMAND_PROPERTY = "dyno.dynomite.command";

  public static final String DEFAULT_REDIS = "dyno/redis:local";
  public static final String DEFAULT_COMPANION = "dyno/companion:local";
  /** What {@code scripts/build-images.sh dynomite} builds from the binary {@code DYNO_DYNOMITE_BINARY} names. */
  public static final String DEFAULT_DYNOMITE = "dyno/dynomite:local";

  public static final String DEFAULT_DYNOMITE_COMMAND = "dynomite -c {conf}";

  private ContainerImages() {}

  /** The Redis image: {@value #REDIS_PROPERTY}, else {@value #DEFAULT_REDIS}. */
  public static String redis() {
    return setting(REDIS_PROPERTY).orElse(DEFAULT_REDIS);
  }

  /** The companion image: {@value #COMPANION_PROPERTY}, else {@value #DEFAULT_COMPANION}. */
  public static String companion() {
    return setting(COMPANION_PROPERTY).orElse(DEFAULT_COMPANION);
  }

  /**
   * The real Dynomite image {@value #DYNOMITE_PROPERTY} names, else none. An image left on the
   * machine by an earlier run is not picked up by itself: which server a run tests against is said,
   * never guessed.
   */
  public static Optional<String> dynomite() {
    return setting(DYNOMITE_PROPERTY);
  }

  /** The command starting Dynomite in its image ({@value #DEFAULT_DYNOMITE_COMMAND} by default). */
  public static String dynomiteCommand() {
    return setting(DYNOMITE_COMMAND_PROPERTY).orElse(DEFAULT_DYNOMITE_COMMAND);
  }

  /** What to do when Dynomite tests are skipped: printed in the skip message. */
  public static String dynomiteHint() {
    return "no real Dynomite image given: set -D" + DYNOMITE_PROPERTY
        + "=<image> (or env DYNO_IMAGE_DYNOMITE; scripts/test.sh builds " + DEFAULT_DYNOMITE
        + " when DYNO_DYNOMITE_BINARY names a binary) to run these tests against real Dynomite; "
        + "optionally -D" + DYNOMITE_COMMAND_PROPERTY
        + "=\"<start command, {conf} = config path>\"";
  }

  static Optional<String> setting(String property) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) {
      v = System.getenv(property.toUpperCase().replace('.', '_'));
    }
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
  }
}
