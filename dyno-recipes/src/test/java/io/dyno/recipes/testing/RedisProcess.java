package io.dyno.recipes.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/** A real redis-server on a free loopback port, started for a test and killed at the end. */
public final class RedisProcess implements AutoCloseable {
  private static final String BINARY = "/usr/bin/redis-server";
  private final Process process;
  private final int port;

  private RedisProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static RedisProcess start() {
    IOException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port = freePort();
      try {
        Process p = new ProcessBuilder(BINARY, "--port", Integer.toString(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
            .redirectErrorStream(true)
            .redirectOutput(new File("/dev/null"))
            .start();
        RedisProcess r = new RedisProcess(p, port);
        if (r.awaitReady()) {
          return r;
        }
        r.close(); // port taken between probe and bind: try another
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IllegalStateException("could not start " + BINARY, last);
  }

  private boolean awaitReady() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline && process.isAlive()) {
      try (Jedis j = jedis()) {
        if ("PONG".equals(j.ping())) {
          return true;
        }
      } catch (RuntimeException notYet) {
        Thread.onSpinWait();
      }
    }
    return false;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A plain connection to this server (RESP2, no protocol negotiation noise). */
  public Jedis jedis() {
    return new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", port),
        redis.clients.jedis.DefaultJedisClientConfig.builder().resp2().timeoutMillis(500).build());
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  /** Freezes the process (SIGSTOP): it keeps its socket open but answers nothing, like a hung node. */
  public void pause() {
    signal("-STOP");
  }

  public void resume() {
    signal("-CONT");
  }

  private void signal(String sig) {
    try {
      int rc = new ProcessBuilder("kill", sig, Long.toString(process.pid())).start().waitFor();
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

  /** Kills the server (SIGKILL). Idempotent. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
