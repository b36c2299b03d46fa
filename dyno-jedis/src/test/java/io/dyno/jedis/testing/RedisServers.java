package io.dyno.jedis.testing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Real redis-server processes (from /usr/bin or PATH) laid out as a Dynomite cluster's datastores:
 * {@code racks} racks of {@code nodesPerRack} nodes, tokens evenly spaced and equal in every rack.
 * Each Host's client port and datastore port are the Redis port (datastore mode only uses the latter).
 */
public final class RedisServers implements AutoCloseable {
  private final List<Process> processes = new ArrayList<>();
  private final List<HostToken> tokens = new ArrayList<>();
  private final List<Integer> ports = new ArrayList<>();
  private final Path dir;
  private final boolean tls;

  public RedisServers(int racks, int nodesPerRack, String... extraArgs) throws Exception {
    this(false, racks, nodesPerRack, extraArgs);
  }

  /**
   * Redis servers that listen with TLS only ({@code --port 0 --tls-port}); {@code tlsArgs} name the
   * certificate files (e.g. {@link TestCertificates#redisTlsArgs}) and anything else to pass.
   */
  public static RedisServers withTls(int racks, int nodesPerRack, String... tlsArgs) throws Exception {
    return new RedisServers(true, racks, nodesPerRack, tlsArgs);
  }

  private RedisServers(boolean tls, int racks, int nodesPerRack, String... extraArgs) throws Exception {
    this.tls = tls;
    dir = Files.createTempDirectory("dyno-jedis-redis");
    try {
      for (int r = 1; r <= racks; r++) {
        for (int i = 0; i < nodesPerRack; i++) {
          int port = start(extraArgs);
          long token = nodesPerRack == 1 ? 0 : (0xffffffffL / nodesPerRack) * i;
          Host h = Host.builder("127.0.0.1", port).datastorePort(port).rack("rack" + r).datacenter("dc1").build();
          tokens.add(new HostToken(token, h));
        }
      }
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  private int start(String... extraArgs) throws Exception {
    String bin = new File("/usr/bin/redis-server").canExecute() ? "/usr/bin/redis-server" : "redis-server";
    for (int attempt = 0; attempt < 5; attempt++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      List<String> listen = tls ? List.of("--port", "0", "--tls-port", String.valueOf(port))
          : List.of("--port", String.valueOf(port));
      List<String> cmd = new ArrayList<>(List.of(bin));
      cmd.addAll(listen);
      cmd.addAll(List.of("--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--dbfilename", "d" + port + ".rdb"));
      cmd.addAll(List.of(extraArgs));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("log" + port).toFile()).start();
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (System.nanoTime() < deadline && p.isAlive()) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          processes.add(p);
          ports.add(port);
          return port;
        } catch (IOException notYet) {
          Thread.onSpinWait();
        }
      }
      p.destroyForcibly();
    }
    throw new IllegalStateException("could not start redis-server");
  }

  public List<HostToken> tokens() {
    return tokens;
  }

  public List<Host> hosts() {
    return tokens.stream().map(HostToken::host).toList();
  }

  public List<Integer> ports() {
    return ports;
  }

  /** Kills the node's process (like a crash). */
  public void kill(Host host) {
    int i = ports.indexOf(host.datastorePort());
    processes.get(i).destroyForcibly();
    try {
      processes.get(i).waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    for (Process p : processes) {
      p.destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
