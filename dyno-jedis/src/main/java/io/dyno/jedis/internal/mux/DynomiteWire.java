package io.dyno.jedis.internal.mux;

import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.Arrays;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.util.SafeEncoder;

/**
 * What both transports say and read the same way on the wire: the multiplexed one here, the pooled
 * sockets in {@code io.dyno.jedis.internal} (which may use this class; this package uses nothing of
 * that one, so the two packages form no cycle).
 */
public final class DynomiteWire {
  /** Dynomite's per-connection consistency command. */
  public static final ProtocolCommand DYNO_CONFIG =
      () -> SafeEncoder.encode("DYNO_CONFIG:CONN_CONSISTENCY");

  /**
   * The message of an error reply that carried no text: a message-less exception would leave the
   * caller nothing to go on.
   */
  public static final String BLANK_ERROR_REPLY = "the server sent an error reply without text";

  private DynomiteWire() {}

  /** Whether {@code c} is {@link #DYNO_CONFIG}, whichever object names it. */
  static boolean isDynoConfig(ProtocolCommand c) {
    return c == DYNO_CONFIG || Arrays.equals(c.getRaw(), DYNO_CONFIG.getRaw());
  }

  /** What went wrong in a failed TLS handshake, in words, or null when it was not a TLS failure. */
  public static String tlsReason(Throwable e, String hostname) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CertificateException ce) {
        String m = String.valueOf(ce.getMessage());
        if (m.contains("subject alternative")
            || m.contains("No name matching")
            || m.contains("No subject")) {
          return "the server's certificate is not for host name '" + hostname + "' (" + m + ")";
        }
      }
      if (t instanceof CertPathValidatorException
          || t.getClass().getName().endsWith("SunCertPathBuilderException")) {
        return "the server's certificate is not trusted (" + t.getMessage()
            + "); give a socket factory whose" + " trust store holds the server's CA";
      }
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLHandshakeException || t instanceof SSLException) {
        return t.getMessage();
      }
    }
    return null;
  }
}
