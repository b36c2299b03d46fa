package io.dyno.companion.dynomite;

import io.dyno.core.Host;
import io.dyno.testsupport.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One real Dynomite process and the redis-server behind it, both children of this JVM, on fixed
 * loopback ports so that either can be stopped and started again in place. Faults are real:
 * {@link #pause()} freezes the process with SIGSTOP (a hung node: connections accepted by the
 * kernel, nothing answered), {@link #kill()} is SIGKILL, {@link #killRedis()} leaves Dynomite up
 * in front of a dead store (it then answers {@code Storage: Datastore refused connection}).
 */
public final class DynomiteNode {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final DynomiteYaml.Node spec;
  private final int index;
  private final Path binary;
  private final Path conf;
  private final Path log;
  private final String redisServer;
  private final Duration startupTimeout;
  private volatile Process dynomite;
  private volatile RedisServer redis;
  private volatile boolean paused;

  DynomiteNode(
      DynomiteYaml.Node spec,
      int index,
      Path binary,
      Path conf,
      Path log,
      String redisServer,
      Duration startupTimeout) {
    this.spec = spec;
    this.index = index;
    this.binary = binary;
    this.conf = conf;
    this.log = log;
    this.redisServer = redisServer;
    this.startupTimeout = startupTimeout;
  }

  public String datacenter() {
    return spec.datacenter();
  }

  public String rack() {
    return spec.rack();
  }
  /** The node's position in its rack (0-based, by token). */
  public int index() {
    return index;
  }

  public long token() {
    return spec.token();
  }

  public int clientPort() {
    return spec.clientPort();
  }

  public int peerPort() {
    return spec.peerPort();
  }

  public int adminPort() {
    return spec.adminPort();
  }

  public int redisPort() {
    return spec.redisPort();
  }
  /** {@code http://127.0.0.1:<adminPort>}: Dynomite's own /info, /cluster_describe, /ping, ... */
  public String adminUrl() {
    return "http://127.0.0.1:" + spec.adminPort();
  }

  /** The node as Dyno sees it: client port, datastore port = its Redis, status UP. */
  public Host host() {
    return Host.builder("127.0.0.1", clientPort())
        .ipAddress("127.0.0.1")
        .rack(rack())
        .datacenter(datacenter())
        .datastorePort(redisPort())
        .build();
  }

  /** The Dynomite process id (for signals and CPU accounting), or -1 when it is not running. */
  public long pid() {
    Process p = dynomite;
    return p != null && p.isAlive() ? p.pid() : -1;
  }

  /** The redis-server process id, or -1 when it is not running. */
  public long redisPid() {
    RedisServer r = redis;
    return r != null && r.isAlive() ? r.pid() : -1;
  }

  /** True while the Dynomite process is alive and not paused. */
  public boolean isRunning() {
    Process p = dynomite;
    return p != null && p.isAlive() && !paused;
  }

  /** Freezes Dynomite (SIGSTOP): clients connect, nothing is answered. */
  public void pause() {
    signal("STOP", pid());
    paused = true;
  }

  /** Thaws a paused Dynomite (SIGCONT). */
  public void resume() {
    signal("CONT", pid());
    paused = false;
  }

  /** Kills Dynomite (SIGKILL). Its Redis keeps running. */
  public void kill() {
    Process p = dynomite;
    if (p == null) return;
    if (paused) resume(); // a stopped process cannot act on SIGKILL's cleanup until continued
    p.destroyForcibly();
    waitExit(p);
    dynomite = null;
  }

  /** Starts Dynomite again (same ports, same configuration) and waits until it answers PING. */
  public synchronized void start() {
    if (dynomite != null && dynomite.isAlive()) return;
    ProcessBuilder pb =
        new ProcessBuilder(List.of(binary.toString(), "-c", conf.toString())); // logs to stderr
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      dynomite = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start " + binary + " for " + this + ": " + e.getMessage(), e);
    }
    paused = false;
    long deadline = System.nanoTime() + startupTimeout.toNanos();
    while (true) {
      Process p = dynomite;
      if (!p.isAlive()) {
        throw new IllegalStateException(
            this + " exited at start (code " + p.exitValue() + "); its log:\n" + log());
      }
      if (answersPing()) return;
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            this + " did not answer PING within " + startupTimeout + "; its log:\n" + log());
      }
      try {
        p.waitFor(20, TimeUnit.MILLISECONDS); // poll interval while it starts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting " + this, e);
      }
    }
  }

  /** Kills the node's redis-server (SIGKILL); Dynomite stays up and answers storage errors. */
  public void killRedis() {
    RedisServer r = redis;
    if (r != null) r.close(); // SIGKILL, as a crash
    redis = null;
  }

  /** Starts the node's redis-server again on its port (empty: no persistence). */
  public synchronized void startRedis() {
    if (redis != null && redis.isAlive()) return;
    redis = RedisServer.builder().executable(redisServer).port(redisPort()).start();
  }

  /** Dynomite's {@code GET /info} (JSON text). Counters refresh every stats interval. */
  public String info() {
    return adminGet("/info");
  }

  /** {@code GET <adminUrl><path>}: the body, or an exception naming the node and path. */
  public String adminGet(String path) {
    try {
      HttpResponse<String> r = HTTP.send(
          HttpRequest.newBuilder(URI.create(adminUrl() + path))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.ofString());
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException(
          "GET " + adminUrl() + path + " failed for " + this + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: GET " + adminUrl() + path, e);
    }
  }

  /** The node's log so far (Dynomite's own log and anything it printed). */
  public String log() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  void close() {
    kill();
    killRedis();
  }

  private boolean answersPing() {
    try {
      return "+PONG".equals(RawResp.call(clientPort(), Duration.ofMillis(300), "PING"));
    } catch (IOException e) {
      return false;
    }
  }

  private void signal(String signal, long pid) {
    if (pid < 0)
      throw new IllegalStateException(this + " is not running: cannot send SIG" + signal);
    try {
      Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
          .redirectErrorStream(true)
          .start();
      if (!k.waitFor(5, TimeUnit.SECONDS) || k.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed for " + this + ": "
            + new String(k.getInputStream().readAllBytes()));
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot run kill -" + signal + " for " + this + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling " + this, e);
    }
  }

  private static void waitExit(Process p) {
    try {
      p.waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "dynomite " + datacenter() + "/" + rack() + "/" + index + " (token " + token()
        + ", client 127.0.0.1:" + clientPort() + ", redis " + redisPort() + ")";
  }
}
