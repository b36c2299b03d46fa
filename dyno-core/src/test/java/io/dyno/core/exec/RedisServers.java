package io.dyno.core.exec;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/** Starts real redis-server processes on free loopback ports; kills them all on close. */
public final class RedisServers implements AutoCloseable {
  public static final class Server {
    public final int port;
    final Process process;

    Server(int port, Process process) {
      this.port = port;
      this.process = process;
    }

    public void kill() {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Freezes the process (SIGSTOP): its sockets stay open but nothing answers. */
    public void stop() throws Exception {
      signal("-STOP");
    }

    public void cont() throws Exception {
      signal("-CONT");
    }

    private void signal(String sig) throws Exception {
      new ProcessBuilder("kill", sig, Long.toString(process.pid())).inheritIO().start().waitFor();
    }
  }

  private final List<Server> servers = new ArrayList<>();

  public Server start() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Process p = new ProcessBuilder("/usr/bin/redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--daemonize", "no")
        .redirectErrorStream(true).redirectOutput(new File("/dev/null")).start();
    Server server = new Server(port, p);
    servers.add(server);
    long end = System.nanoTime() + 10_000_000_000L;
    while (true) { // bounded poll until it accepts connections
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return server;
      } catch (IOException e) {
        if (!p.isAlive() || System.nanoTime() > end) {
          throw new IOException("redis-server on port " + port + " did not start", e);
        }
        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
      }
    }
  }

  @Override
  public void close() {
    for (Server s : servers) {
      try {
        s.cont();
      } catch (Exception ignored) {
        // it may be gone already
      }
      s.kill();
    }
  }
}
