package io.dyno.loadgen;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A real redis-server on a free loopback port, for tests; {@link #close()} stops it. */
public final class RedisServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path dir;

  private RedisServerProcess(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  public static RedisServerProcess start() throws Exception {
    IOException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      Path dir = Files.createTempDirectory("loadgen-redis");
      Process p = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no", "--dir", dir.toString()))
          .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < deadline && p.isAlive()) {
        try {
          if (command(port, "PING").contains("PONG")) {
            return new RedisServerProcess(p, port, dir);
          }
        } catch (IOException e) {
          last = e;
        }
        Thread.onSpinWait();
      }
      p.destroyForcibly();
    }
    throw new IOException("redis-server did not start", last);
  }

  public int port() {
    return port;
  }

  /** The redis-server's process id (for tests that read its CPU time). */
  public long pid() {
    return process.pid();
  }

  /** Sends one inline command and returns the raw reply text (enough for PING and INFO). */
  public static String command(int port, String inline) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(2000);
      OutputStream out = s.getOutputStream();
      out.write((inline + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[65536];
      StringBuilder sb = new StringBuilder();
      int n = in.read(buf);
      if (n > 0) sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
      // A bulk reply announces its length: read until all of it arrived.
      if (sb.length() > 0 && sb.charAt(0) == '$') {
        int len = Integer.parseInt(sb.substring(1, sb.indexOf("\r\n")));
        int need = sb.indexOf("\r\n") + 2 + len + 2;
        while (sb.toString().getBytes(StandardCharsets.UTF_8).length < need && (n = in.read(buf)) > 0) {
          sb.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      }
      return sb.toString();
    }
  }

  public static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String d : path.split(File.pathSeparator)) {
      if (new File(d, exe).canExecute()) return true;
    }
    return false;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
