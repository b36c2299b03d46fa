package io.dyno.core.topology;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A source that knows the whole topology at once (a static map, {@code cluster_describe}): each
 * {@link HostToken} carries its {@link Host}. It can serve as both the host source and the token
 * map; {@link TopologyRefresher} then reads it once per refresh so hosts and tokens agree.
 */
public interface TopologySupplier extends HostSupplier, TokenMapSupplier {

  /**
   * Every node with its token.
   *
   * @return one entry per node, each carrying its {@link Host}
   * @throws Exception when the source cannot answer this time (the refresher keeps the last good
   *     topology)
   */
  List<HostToken> getHostTokens() throws Exception;

  @Override
  default List<Host> getHosts() throws Exception {
    LinkedHashSet<Host> hosts = new LinkedHashSet<>();
    for (HostToken ht : getHostTokens()) hosts.add(ht.host());
    return List.copyOf(hosts);
  }

  @Override
  default List<HostToken> getTokens(Collection<Host> hosts) throws Exception {
    return getHostTokens();
  }
}
