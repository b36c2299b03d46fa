package io.dyno.core.topology;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import java.util.Collection;
import java.util.List;

/** A fixed list of nodes. */
public final class StaticHostSupplier implements HostSupplier {
  private final List<Host> hosts;

  /**
   * A source that always answers {@code hosts}.
   *
   * @param hosts the nodes; copied
   * @throws IllegalArgumentException when {@code hosts} is null or empty
   */
  public StaticHostSupplier(Collection<Host> hosts) {
    if (hosts == null || hosts.isEmpty()) {
      throw new IllegalArgumentException("StaticHostSupplier needs at least one host");
    }
    this.hosts = List.copyOf(hosts);
  }

  /**
   * A source that always answers {@code hosts}.
   *
   * @param hosts the nodes; at least one
   * @return the source
   */
  public static StaticHostSupplier of(Host... hosts) {
    return new StaticHostSupplier(List.of(hosts));
  }

  @Override
  public List<Host> getHosts() {
    return hosts;
  }

  @Override
  public String toString() {
    return "StaticHostSupplier" + hosts;
  }
}
