package io.dyno.recipes.testing;

import io.dyno.core.Host;
import io.dyno.testsupport.RedisServer;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** Hosts for redis processes, as a lock's voters: client port and datastore port are the redis port. */
public final class Voters {
  private Voters() {}

  public static Host host(RedisServer r, String rack) {
    return Host.builder(r.host(), r.port())
        .datastorePort(r.port())
        .rack(rack)
        .datacenter("dc1")
        .build();
  }

  /** One host per process, racks rack1..rackN in order. */
  public static List<Host> oneRackEach(List<RedisServer> servers) {
    List<Host> hosts = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      hosts.add(host(servers.get(i), "rack" + (i + 1)));
    }
    return hosts;
  }

  /** A plain connection straight to one voter (RESP2, no protocol negotiation noise), to inspect or plant keys. */
  public static Jedis jedis(RedisServer r) {
    return new Jedis(
        new HostAndPort(r.host(), r.port()),
        DefaultJedisClientConfig.builder().resp2().timeoutMillis(500).build());
  }
}
