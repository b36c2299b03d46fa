package io.dyno.core.topology;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a {@code cluster_describe} endpoint gave no cluster description, each reason with its likely
 * cause (nothing listening, no answer in time, a port that does not speak HTTP, a wrong path) and
 * where the endpoints really are. An {@link UnusableAnswerException} when the URL is at fault,
 * since asking again will not mend it; a plain {@link IOException} when a later try may succeed.
 */
final class DescribeFailures {
  /** Where the two cluster_describe endpoints are, for a message about a wrong URL. */
  private static final String WHERE_IT_IS = " Dynomite's is "
      + ClusterDescribeTokenMapSupplier.DYNOMITE_PATH
      + " on its stats port " + ClusterDescribeTokenMapSupplier.DYNOMITE_ADMIN_PORT
      + " (stats_listen in dynomite.yml), Dynomite-manager's "
      + ClusterDescribeTokenMapSupplier.MANAGER_PATH
      + " on its port " + ClusterDescribeTokenMapSupplier.MANAGER_PORT;

  private static final int GIST_LENGTH = 80;
  private static final Pattern HTML_TITLE =
      Pattern.compile("<title[^>]*>(.*?)</title>", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  private DescribeFailures() {}

  /**
   * An answer whose status is not 200, told by its status and gist only (an error page's HTML
   * would bury the status and the URL). A 5xx may come from a server that is still starting; any
   * other status means a wrong URL.
   */
  static IOException badStatus(int status, String body) {
    String gist = gist(body);
    String message = "HTTP " + status + (gist.isEmpty() ? "" : ": " + gist);
    return status >= 500 && status < 600
        ? new IOException(message)
        : new UnusableAnswerException(message);
  }

  /**
   * A 200 answer that is not JSON: Dynomite answers 200 "OK" to any admin path it does not know,
   * so a mistyped path lands here.
   */
  static UnusableAnswerException notJson(String body) {
    String gist = gist(body);
    String what =
        body.isBlank() ? "an empty body" : gist.isEmpty() ? "a page of markup" : "\"" + gist + "\"";
    return new UnusableAnswerException(
        "HTTP 200 with " + what + ", not a cluster description: the path is"
            + " probably not a cluster_describe endpoint (Dynomite answers OK to any admin path it"
            + " does not know)."
            + WHERE_IT_IS);
  }

  /**
   * A failure to get any HTTP answer, with its likely cause: nothing listening (a wrong host or
   * port, or the node is down), no answer in time, or an answer that is not HTTP (a RESP or peer
   * port: an {@link UnusableAnswerException}, since waiting mends no wrong port). Another
   * failure is returned as it is.
   */
  static IOException noAnswer(
      IOException e, URI uri, Optional<Duration> connectTimeout, Duration requestTimeout) {
    int port = uri.getPort() > 0 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    String where = uri.getHost() + ":" + port;
    String type = e.getClass().getSimpleName();
    if (e instanceof HttpConnectTimeoutException) {
      return withCause(
          new IOException(type + ": no connection to " + where + " within "
              + connectTimeout.map(d -> d.toMillis() + " ms").orElse("the connect timeout")
              + ": a wrong host, a firewall, or the node is down"),
          e);
    }
    if (e instanceof HttpTimeoutException) {
      return withCause(
          new IOException(type + ": connected to " + where + " but no HTTP answer within "
              + requestTimeout.toMillis()
              + " ms: a port that does not speak HTTP (a peer port?) or a"
              + " hung node." + WHERE_IT_IS),
          e);
    }
    if (e instanceof ConnectException) {
      return withCause(
          new IOException(type + ": nothing is listening at " + where
              + " (connection refused): a wrong host or port, or the node is not running."
              + WHERE_IT_IS),
          e);
    }
    if (notHttp(e)) {
      String said = e instanceof ProtocolException && e.getMessage() != null
          ? "answered " + e.getMessage()
          : "closed the connection without an HTTP answer";
      return withCause(
          new UnusableAnswerException(where + " is not an HTTP port (it " + said
              + "): probably a RESP port (a node's client port, or its Redis) or a peer port."
              + WHERE_IT_IS),
          e);
    }
    return e;
  }

  /**
   * A short text of a body for an error message (at most 80 characters): an HTML page's title, or
   * its text without tags when it has none, else the first line.
   */
  static String gist(String body) {
    String b = body.strip();
    Matcher title = HTML_TITLE.matcher(b);
    String line = title.find()
        ? title.group(1)
        : b.startsWith("<")
            ? b.replaceAll("<[^>]*>", " ")
            : b.lines().findFirst().orElse("");
    line = line.strip().replaceAll("\\s+", " ");
    return line.length() > GIST_LENGTH ? line.substring(0, GIST_LENGTH) + "…" : line;
  }

  /** Whether a body can be a cluster description at all: both shapes are a JSON object or array. */
  static boolean looksLikeJson(String body) {
    String b = body.strip();
    return b.startsWith("{") || b.startsWith("[");
  }

  /** What the JDK's HTTP client says when the other end answered with something that is not HTTP. */
  private static boolean notHttp(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? "" : t.getMessage();
      if (t instanceof ProtocolException
          || t instanceof EOFException
          || m.contains("header parser received no bytes")
          || m.contains("status line")) {
        return true;
      }
    }
    return false;
  }

  private static <T extends IOException> T withCause(T e, IOException cause) {
    e.initCause(cause);
    return e;
  }
}
