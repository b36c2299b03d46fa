package io.dyno.core.topology;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refresh reports into the log, under {@link TopologyRefresher}'s name (the one users configure).
 * A failure's stack trace is logged only at DEBUG: the message already names the reason, and an
 * outage should not fill the log with traces.
 */
final class Slf4jRefreshReport implements TopologyRefresher.Report {
  private static final Logger LOG = LoggerFactory.getLogger(TopologyRefresher.class);

  @Override
  public void warn(String message, Throwable cause) {
    if (cause != null && LOG.isDebugEnabled()) {
      LOG.warn(message, cause);
    } else {
      LOG.warn(message);
    }
  }

  @Override
  public void info(String message) {
    LOG.info(message);
  }

  @Override
  public void debug(String message) {
    LOG.debug(message);
  }
}
