package io.dyno.core;

import java.util.Collection;
import java.util.List;

/** Says which token each node owns (Dynomite's {@code /cluster_describe}, Dynomite-manager, a static map). */
@FunctionalInterface
public interface TokenMapSupplier {
  /**
   * The tokens of (at least) the given hosts. Throwing means "no answer": the caller keeps the
   * last good topology and reports the reason once.
   */
  List<HostToken> getTokens(Collection<Host> hosts) throws Exception;
}
