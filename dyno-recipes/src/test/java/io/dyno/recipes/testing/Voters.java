package io.dyno.recipes.testing;

import io.dyno.core.Host;
import java.util.ArrayList;
import java.util.List;

/** Hosts for redis processes, as a lock's voters: client port and datastore port are the redis port. */
public final class Voters {
  private Voters() {}

  public static Host host(RedisProcess r, String rack) {
    return Host.builder("127.0.0.1", r.port()).datastorePort(r.port()).rack(rack).datacenter("dc1").build();
  }

  /** One host per process, racks rack1..rackN in order. */
  public static List<Host> oneRackEach(List<RedisProcess> servers) {
    List<Host> hosts = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      hosts.add(host(servers.get(i), "rack" + (i + 1)));
    }
    return hosts;
  }
}
