package io.dyno.core;

import java.util.Collection;
import java.util.List;

/** Says which token each node owns (Dynomite's {@code /cluster_describe}, Dynomite-manager, a static map). */
@FunctionalInterface
public interface TokenMapSupplier {
  /**
   * The tokens of (at least) the given hosts. Throwing means "no answer": the caller keeps the
   * last good topology and reports the reason once. Called from the refresher's thread.
   *
   * @param hosts the nodes the host source reported (a source may use them to know whom to ask)
   * @return one token per node
   * @throws Exception when the source cannot answer this time
   */
  List<HostToken> getTokens(Collection<Host> hosts) throws Exception;
}
