package io.dyno.core.topology;

import java.io.IOException;

/**
 * A topology source was reached but its answer cannot be used: an HTTP status other than 200 (a
 * 5xx excepted, which a server that is still starting may give), a body that is not a cluster
 * description (Dynomite answers {@code OK} to any admin path it does not know), a malformed
 * document, an answer that is not HTTP at all (a RESP or peer port where the admin port belongs).
 * The message names the URL and what came back.
 *
 * <p>It is a type of its own because waiting does not cure it, unlike a source that cannot be
 * reached yet: start-up then points at the URL instead of suggesting
 * {@code failOnStartupIfNoHosts=false}. An {@link IOException}, as the supplier's other failures.
 */
public final class UnusableAnswerException extends IOException {
  /**
   * Creates the exception.
   *
   * @param message the URL and what came back
   */
  public UnusableAnswerException(String message) {
    super(message);
  }
}
