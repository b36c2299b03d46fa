package io.dyno.core.topology;

import io.dyno.core.HostToken;
import java.util.Collection;
import java.util.List;

/** A fixed token map; being a {@link TopologySupplier}, it can also serve as the host source. */
public final class StaticTokenMapSupplier implements TopologySupplier {
  private final List<HostToken> tokens;

  /**
   * A source that always answers {@code tokens}.
   *
   * @param tokens one entry per node; copied
   * @throws IllegalArgumentException when {@code tokens} is null or empty
   */
  public StaticTokenMapSupplier(Collection<HostToken> tokens) {
    if (tokens == null || tokens.isEmpty()) {
      throw new IllegalArgumentException("StaticTokenMapSupplier needs at least one host token");
    }
    this.tokens = List.copyOf(tokens);
  }

  /**
   * A source that always answers {@code tokens}.
   *
   * @param tokens one entry per node; at least one
   * @return the source
   */
  public static StaticTokenMapSupplier of(HostToken... tokens) {
    return new StaticTokenMapSupplier(List.of(tokens));
  }

  @Override
  public List<HostToken> getHostTokens() {
    return tokens;
  }

  @Override
  public String toString() {
    return "StaticTokenMapSupplier" + tokens;
  }
}
