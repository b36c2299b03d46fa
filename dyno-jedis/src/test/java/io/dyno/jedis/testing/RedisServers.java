package io.dyno.jedis.testing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.testsupport.RedisServer;
import java.util.ArrayList;
import java.util.List;

/**
 * Real redis-server processes ({@link RedisServer}) laid out as a Dynomite cluster's datastores:
 * {@code racks} racks of {@code nodesPerRack} nodes, tokens evenly spaced and equal in every rack.
 * Each Host's client port and datastore port are the Redis port (datastore mode only uses the latter).
 */
public final class RedisServers implements AutoCloseable {
  private final List<RedisServer> servers = new ArrayList<>();
  private final List<HostToken> tokens = new ArrayList<>();

  public RedisServers(int racks, int nodesPerRack, String... extraArgs) {
    this(false, racks, nodesPerRack, extraArgs);
  }

  /**
   * Redis servers that listen with TLS only ({@code --port 0 --tls-port}); {@code tlsArgs} name the
   * certificate files (e.g. {@link TestCertificates#redisTlsArgs}) and anything else to pass.
   */
  public static RedisServers withTls(int racks, int nodesPerRack, String... tlsArgs) {
    return new RedisServers(true, racks, nodesPerRack, tlsArgs);
  }

  private RedisServers(boolean tls, int racks, int nodesPerRack, String... extraArgs) {
    try {
      for (int r = 1; r <= racks; r++) {
        for (int i = 0; i < nodesPerRack; i++) {
          RedisServer server = RedisServer.builder().tls(tls).args(extraArgs).start();
          servers.add(server);
          long token = nodesPerRack == 1 ? 0 : (0xffffffffL / nodesPerRack) * i;
          Host h = Host.builder(server.host(), server.port())
              .datastorePort(server.port())
              .rack("rack" + r)
              .datacenter("dc1")
              .build();
          tokens.add(new HostToken(token, h));
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  public List<HostToken> tokens() {
    return tokens;
  }

  public List<Host> hosts() {
    return tokens.stream().map(HostToken::host).toList();
  }

  public List<Integer> ports() {
    return servers.stream().map(RedisServer::port).toList();
  }

  /** The process serving {@code host}, to pause, kill or restart it. */
  public RedisServer server(Host host) {
    return servers.stream()
        .filter(s -> s.port() == host.datastorePort())
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(host.id() + " is not one of " + hosts()));
  }

  /** Kills the node's process (like a crash). */
  public void kill(Host host) {
    server(host).kill();
  }

  @Override
  public void close() {
    servers.forEach(RedisServer::close);
  }
}
