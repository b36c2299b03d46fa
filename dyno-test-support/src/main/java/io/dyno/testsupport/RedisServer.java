package io.dyno.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} child process on a loopback port, for tests.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *   Jedis jedis = new Jedis("127.0.0.1", redis.port());
 * }
 * }</pre>
 *
 * <p>Start-up picks a free port, launches the binary without persistence, and polls (bounded by the
 * start-up timeout) until the port answers PING <em>and</em> {@code INFO server} reports this child's
 * process id; a port another process grabbed between the check and the bind is detected that way
 * and the start is retried on a fresh port (a server that lets only ACL users in cannot be asked its
 * pid: there, an answer while the child is alive counts). A missing binary fails at once with what to install
 * (see {@link RedisExecutable}). Every live server is killed by a JVM shutdown hook if a test forgets
 * it; {@link #close()} is idempotent. Output goes to {@link #log()}, whose tail every start-up error
 * quotes.
 */
public final class RedisServer implements AutoCloseable {
  /** Loopback only: nothing here is reachable from another machine. */
  public static final String HOST = "127.0.0.1";

  private static final int FREE_PORT_ATTEMPTS = 5;

  private final Path executable;
  private final int port;
  private final boolean tls;
  private final List<String> extraArgs;
  private final Duration startupTimeout;
  private final Path dir;
  private volatile Process process; // volatile: the shutdown hook reads it without the lock
  private boolean closed;

  private RedisServer(Builder b, Path executable, int port, Path dir) {
    this.executable = executable;
    this.port = port;
    this.tls = b.tls;
    this.extraArgs = List.copyOf(b.args);
    this.startupTimeout = b.startupTimeout;
    this.dir = dir;
  }

  /** Starts a plain server on a free port; {@code args} are more redis-server options, e.g. {@code --requirepass s3cret}. */
  public static RedisServer start(String... args) {
    return builder().args(args).start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Options for one server; {@link #start()} launches it and returns once it answers. */
  public static final class Builder {
    private String executable = RedisExecutable.configured();
    private int port;
    private boolean tls;
    private final List<String> args = new ArrayList<>();
    private Duration startupTimeout = Duration.ofSeconds(10);

    private Builder() {}

    /** The binary: a path, or a name looked up on PATH. Default: {@code -Ddyno.redis-server}, {@code $DYNO_REDIS_SERVER}, else {@code redis-server}. */
    public Builder executable(String nameOrPath) {
      this.executable = Objects.requireNonNull(nameOrPath, "executable");
      return this;
    }

    /** A fixed port (e.g. one a cluster layout promised); default 0, a free one chosen at start. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port " + port + " is not between 0 and 65535");
      }
      this.port = port;
      return this;
    }

    /** Listen with TLS only ({@code --port 0 --tls-port <port>}); pass the certificate options as {@link #args}. */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /** More redis-server options, appended after Dyno's defaults so they win. */
    public Builder args(String... more) {
      args.addAll(List.of(more));
      return this;
    }

    public Builder startupTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startupTimeout must be positive, was " + timeout);
      }
      this.startupTimeout = timeout;
      return this;
    }

    /**
     * Launches the server and waits until it answers.
     *
     * @throws IllegalStateException when the binary is missing, or the server exits or stays silent
     *     (the message quotes its log)
     */
    public RedisServer start() {
      Path binary = RedisExecutable.resolve(executable);
      Path dir = createDir();
      if (port != 0) {
        RedisServer server = new RedisServer(this, binary, port, dir);
        try {
          server.launchOrThrow();
        } catch (RuntimeException e) {
          server.close();
          throw e;
        }
        return server;
      }
      StartupFailure last = null;
      for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
        RedisServer server = new RedisServer(this, binary, freePort(), dir);
        try {
          server.launch();
          return server;
        } catch (StartupFailure e) {
          LiveServers.forget(server);
          last = e;
          if (!e.portTaken) {
            break;
          }
        }
      }
      deleteRecursively(dir);
      throw new IllegalStateException(last.getMessage(), last);
    }
  }

  /** A loopback port that was free a moment ago (another process may take it before it is used). */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port: " + e.getMessage(), e);
    }
  }

  public int port() {
    return port;
  }

  public String host() {
    return HOST;
  }

  /** {@code 127.0.0.1:<port>}. */
  public String hostAndPort() {
    return HOST + ":" + port;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(HOST, port);
  }

  public boolean isTls() {
    return tls;
  }

  /** The process id, e.g. to read its CPU time. */
  public synchronized long pid() {
    return process.pid();
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The server's output (one file across {@link #restart()}s). */
  public Path log() {
    return dir.resolve("redis.log");
  }

  /** Freezes the process (SIGSTOP): its sockets stay open and nothing answers, like a hung node. */
  public void pause() {
    signal("STOP");
  }

  /** Thaws a {@link #pause()}d process (SIGCONT). */
  public void resume() {
    signal("CONT");
  }

  /** Kills the process at once (SIGKILL, works on a paused one too), as a crash would; the port closes. */
  public synchronized void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      awaitExit();
    }
  }

  /** Starts the server again on the same port with the same options (empty: nothing is persisted). */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException(this + " is closed; start a new one");
    }
    kill();
    launchOrThrow();
  }

  /** Kills the process and deletes its folder. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    kill();
    LiveServers.forget(this);
    deleteRecursively(dir);
  }

  @Override
  public String toString() {
    return "redis-server " + hostAndPort() + (tls ? " (TLS)" : "");
  }

  /** Without the lock: a hook must not wait for a thread the JVM exit froze mid-start. */
  void killOnJvmExit() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
    }
  }

  private void launchOrThrow() {
    try {
      launch();
    } catch (StartupFailure e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private synchronized void launch() throws StartupFailure {
    List<String> command = new ArrayList<>(List.of(executable.toString()));
    command.addAll(
        tls
            ? List.of("--port", "0", "--tls-port", String.valueOf(port))
            : List.of("--port", String.valueOf(port)));
    command.addAll(List.of(
        "--bind",
        HOST,
        "--protected-mode",
        "no",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir.toString(),
        "--dbfilename",
        "dump-" + port + ".rdb",
        "--daemonize",
        "no"));
    command.addAll(extraArgs);
    try {
      process = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
          .start();
    } catch (IOException e) {
      throw new StartupFailure("cannot run " + executable + ": " + e.getMessage(), false);
    }
    LiveServers.remember(this);
    awaitAnswer();
  }

  /** Bounded poll: PING every few ms until this very process answers, it exits, or the timeout passes. */
  private void awaitAnswer() throws StartupFailure {
    String password = optionValue("--requirepass");
    long deadline = System.nanoTime() + startupTimeout.toNanos();
    while (true) {
      long answeringPid = RespProbe.processId(port, password, tls);
      if (answeringPid == process.pid()) {
        return;
      }
      if (answeringPid == RespProbe.ANSWERING_UNIDENTIFIED && process.isAlive()) {
        return; // ACL users only: a server answers, and ours is alive; which one cannot be asked
      }
      if (answeringPid > 0) {
        kill(); // another redis-server owns the port; ours cannot bind it
        throw new StartupFailure(
            this + ": port " + port + " is already served by process " + answeringPid, true);
      }
      if (!process.isAlive()) {
        String log = logTail();
        boolean portTaken = log.contains("Address already in use");
        throw new StartupFailure(
            this + " exited with status " + process.exitValue() + " during start-up. Log:\n" + log,
            portTaken);
      }
      if (System.nanoTime() > deadline) {
        kill();
        throw new StartupFailure(
            this + " did not answer PING within " + startupTimeout.toMillis() + " ms. Log:\n"
                + logTail(),
            false);
      }
      try {
        process.waitFor(10, TimeUnit.MILLISECONDS); // poll interval; returns early if it exits
      } catch (InterruptedException e) {
        kill();
        Thread.currentThread().interrupt();
        throw new StartupFailure("interrupted while starting " + this, false);
      }
    }
  }

  private String optionValue(String option) {
    int i = extraArgs.lastIndexOf(option);
    return i >= 0 && i + 1 < extraArgs.size() ? extraArgs.get(i + 1) : null;
  }

  private synchronized void signal(String signal) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException(this + " is not running; cannot send SIG" + signal);
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      int status = kill.waitFor();
      if (status != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + process.pid() + " exited with " + status);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot send SIG" + signal + " to " + this + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + this, e);
    }
  }

  private void awaitExit() {
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            this + " (pid " + process.pid() + ") did not exit 10 s after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log(), StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static Path createDir() {
    try {
      return Files.createTempDirectory("dyno-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create a folder for redis-server: " + e.getMessage(), e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException ignored) {
      // a leftover temp folder is harmless
    }
  }

  /** Why one start attempt failed; {@code portTaken}: another attempt on a fresh port may succeed. */
  private static final class StartupFailure extends Exception {
    final boolean portTaken;

    StartupFailure(String message, boolean portTaken) {
      super(message);
      this.portTaken = portTaken;
    }
  }
}
