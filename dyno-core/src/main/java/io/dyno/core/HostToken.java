package io.dyno.core;

import java.util.Objects;

/** One node's token on its rack's ring: the node owns hashes in {@code (previous token, token]}. */
public record HostToken(long token, Host host) {
  public HostToken {
    if (token < 0 || token > 0xffffffffL) {
      throw new IllegalArgumentException("token of " + host + " must be an unsigned 32-bit value, was " + token);
    }
    Objects.requireNonNull(host, "host");
  }
}
