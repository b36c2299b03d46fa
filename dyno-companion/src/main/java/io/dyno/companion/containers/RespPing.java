package io.dyno.companion.containers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.containers.wait.strategy.WaitStrategyTarget;

/** Readiness checks: a RESP {@code PING} answered with {@code +PONG}, or a log line; both notice an exited process. */
final class RespPing {
  private RespPing() {}

  /** True when {@code 127.0.0.1:port} answers PING with PONG within {@code timeout}. */
  static boolean pong(int port, Duration timeout) {
    try (Socket s = new Socket()) {
      int ms = (int) Math.max(1, timeout.toMillis());
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), ms);
      s.setSoTimeout(ms);
      OutputStream out = s.getOutputStream();
      out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[7];
      int n = 0;
      while (n < buf.length) {
        int r = in.read(buf, n, buf.length - n);
        if (r < 0) break;
        n += r;
      }
      return new String(buf, 0, n, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException e) {
      return false;
    }
  }

  /** Polls {@link #pong} every 50 ms until it succeeds or {@code timeout} passes. */
  static void await(String what, int port, Duration timeout) throws TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!pong(port, Duration.ofMillis(500))) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            what + " did not answer PING on 127.0.0.1:" + port + " within " + timeout);
      }
      try {
        Thread.sleep(50); // poll interval of a bounded wait, not synchronisation
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TimeoutException("interrupted while waiting for " + what);
      }
    }
  }

  /**
   * Waits until {@code ready} holds, polling every 50 ms; fails at once, with the container's
   * log, when the process exits (rather than waiting out the whole startup timeout).
   */
  static AbstractWaitStrategy until(
      String what, String condition, Predicate<WaitStrategyTarget> ready) {
    return new AbstractWaitStrategy() {
      @Override
      protected void waitUntilReady() {
        long deadline = System.nanoTime() + startupTimeout.toNanos();
        while (!ready.test(waitStrategyTarget)) {
          if (!waitStrategyTarget.isRunning()) {
            throw new ContainerLaunchException(what + " exited before " + condition + "; its log:\n"
                + waitStrategyTarget.getLogs());
          }
          if (System.nanoTime() > deadline) {
            throw new ContainerLaunchException(what + ": no " + condition + " within "
                + startupTimeout + "; its log:\n" + waitStrategyTarget.getLogs());
          }
          try {
            Thread.sleep(50); // poll interval of a bounded wait
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerLaunchException("interrupted while waiting for " + what, e);
          }
        }
      }
    };
  }

  /** Ready once the log contains {@code line}. */
  static AbstractWaitStrategy logLine(String what, String line) {
    return until(what, "log line '" + line + "'", t -> t.getLogs().contains(line));
  }

  /** Ready once the process answers PING on {@code port}. */
  static AbstractWaitStrategy ping(String what, int port) {
    return until(what, "PONG on 127.0.0.1:" + port, t -> pong(port, Duration.ofMillis(500)));
  }
}
