package io.dyno.core;

import java.util.Objects;

/**
 * One node's token on its rack's ring: the node owns hashes in {@code (previous token, token]}.
 *
 * @param token the token, an unsigned 32-bit value held in a {@code long}
 * @param host the node that owns it
 */
public record HostToken(long token, Host host) {
  /**
   * Checks the token's range.
   *
   * @param token 0..4294967295
   * @param host the node; not null
   * @throws IllegalArgumentException naming the host when the token is out of range
   */
  public HostToken {
    if (token < 0 || token > 0xffffffffL) {
      throw new IllegalArgumentException(
          "token of " + host + " must be an unsigned 32-bit value, was " + token);
    }
    Objects.requireNonNull(host, "host");
  }
}
