package io.dyno.jedis.internal.mux;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** One real redis-server on a free loopback port that a test can pause (SIGSTOP), kill and restart on the same port. */
final class LocalRedis implements AutoCloseable {
  private final Path dir;
  private final int port;
  private Process process;

  private final String[] extraArgs;

  private LocalRedis(Path dir, int port, String... extraArgs) {
    this.dir = dir;
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /** {@code extraArgs}: more redis-server options, e.g. {@code --requirepass secret}. */
  static LocalRedis start(String... extraArgs) throws Exception {
    Path dir = Files.createTempDirectory("dyno-mux-redis");
    for (int attempt = 0; ; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      LocalRedis r = new LocalRedis(dir, port, extraArgs);
      if (r.launch() || attempt == 4) {
        if (r.process == null || !r.process.isAlive()) {
          throw new IllegalStateException("could not start redis-server");
        }
        return r;
      }
    }
  }

  /** Starts the process and waits (bounded) until it accepts connections. */
  private boolean launch() throws IOException {
    String bin = new File("/usr/bin/redis-server").canExecute() ? "/usr/bin/redis-server" : "redis-server";
    java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(bin, "--port", String.valueOf(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString()));
    cmd.addAll(java.util.List.of(extraArgs));
    process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("log" + port).toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline && process.isAlive()) {
      try (Socket s = new Socket("127.0.0.1", port)) {
        return true;
      } catch (IOException notYet) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
    process.destroyForcibly();
    return false;
  }

  int port() { return port; }

  InetSocketAddress address() { return new InetSocketAddress("127.0.0.1", port); }

  String name() { return "redis@127.0.0.1:" + port; }

  void pause() { signal("-STOP"); }

  void resume() { signal("-CONT"); }

  /** Like a crash: the kernel closes its sockets. Works on a paused process too. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  void restart() throws IOException {
    if (!launch()) {
      throw new IllegalStateException("could not restart redis-server on port " + port);
    }
  }

  private void signal(String sig) {
    try {
      int rc = new ProcessBuilder("kill", sig, String.valueOf(process.pid())).inheritIO().start().waitFor();
      if (rc != 0) {
        throw new IllegalStateException("kill " + sig + " " + process.pid() + " exited " + rc);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      if (process.isAlive()) {
        signal("-CONT"); // leave nothing stopped behind
      }
      kill();
    }
  }
}
