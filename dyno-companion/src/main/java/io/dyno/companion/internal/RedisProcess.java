package io.dyno.companion.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@code redis-server} child process on a free loopback port, without persistence. */
public final class RedisProcess implements AutoCloseable {
  private final Process process;
  private final int port;

  private RedisProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public int port() { return port; }

  /** Starts {@code executable} (a path, or a name looked up on PATH) on a free port and waits until it answers PING. */
  public static RedisProcess start(String executable) {
    IllegalStateException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        return start(executable, freePort());
      } catch (NotAnsweringException e) {
        last = e; // most often another process took the port between the check and the bind
      }
    }
    throw new IllegalStateException("could not start " + executable + ": " + last.getMessage(), last);
  }

  /** Starts {@code executable} on {@code port} (e.g. again, after it was stopped) and waits until it answers PING. */
  public static RedisProcess start(String executable, int port) {
    ProcessBuilder pb = new ProcessBuilder(List.of(executable, "--port", String.valueOf(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--protected-mode", "no"));
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start \"" + executable + "\" (is redis-server installed and on PATH?): "
          + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline && p.isAlive()) {
      if (ping(port)) {
        return new RedisProcess(p, port);
      }
      try {
        p.waitFor(20, TimeUnit.MILLISECONDS); // poll interval while redis starts
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting redis-server on port " + port, e);
      }
    }
    p.destroyForcibly();
    throw new NotAnsweringException("redis-server on port " + port + " did not answer PING");
  }

  /** The redis-server process id, for signals (SIGSTOP/SIGKILL) in fault tests. */
  public long pid() { return process.pid(); }

  /** Kills the process at once (SIGKILL), as a crash would. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(3, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final class NotAnsweringException extends IllegalStateException {
    NotAnsweringException(String message) { super(message); }
  }

  static boolean ping(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
      s.setSoTimeout(500);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[7];
      int n = in.readNBytes(buf, 0, 7);
      return n == 7 && new String(buf, StandardCharsets.US_ASCII).equals("+PONG\r\n");
    } catch (IOException e) {
      return false;
    }
  }

  /** A loopback port that was free a moment ago. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free loopback port: " + e.getMessage(), e);
    }
  }

  public boolean isAlive() { return process.isAlive(); }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(3, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "redis-server 127.0.0.1:" + port;
  }
}
