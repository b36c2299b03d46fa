package io.dyno.jedis.internal;

import io.dyno.core.internal.KeyText;
import io.dyno.core.routing.Topology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per client, when a key looks hash-tagged ({@code {user1}:cart}) but the client hashes
 * whole keys: such keys, meant to share a node, are spread over the cluster, and multi-key commands
 * on them fail with CrossNodeKeysException. Most often the cluster's {@code hash_tag} is set in
 * dynomite.yml and the client was not told. Only {@code {...}} is recognised: it is the tag nearly
 * every deployment uses, and any other pair would make ordinary keys look tagged.
 */
final class HashTagWarning {
  private static final Logger log = LoggerFactory.getLogger(HashTagWarning.class);

  private final String applicationName;
  private final AtomicBoolean warned = new AtomicBoolean();

  HashTagWarning(String applicationName) {
    this.applicationName = applicationName;
  }

  /** Looks at {@code keys} of one command, unless this client already warned or has a hash tag. */
  void check(Topology topology, List<Object> keys) {
    if (warned.get() || !topology.hasher().hashtag().isEmpty()) {
      return;
    }
    for (Object key : keys) {
      if (looksTagged(key) && warned.compareAndSet(false, true)) {
        // Concatenated, not a log pattern: the advice itself contains "{}".
        log.warn(
            "{}",
            "DynoJedisClient '" + applicationName + "': key " + KeyText.show(key)
                + " contains {...} but"
                + " this client has no hash tag, so the whole key is hashed and keys sharing a {tag} may be owned by"
                + " different nodes. If the cluster's dynomite.yml sets hash_tag: \"{}\", set the same on the client:"
                + " DynoJedisClient.builder().hashtag(\"{}\"). (Logged once per client.)");
        return;
      }
    }
  }

  /** A {@code '{'} followed, after at least one byte, by a {@code '}'}: a Redis-style hash tag. */
  static boolean looksTagged(Object key) {
    byte[] bytes =
        key instanceof byte[] b ? b : String.valueOf(key).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '{') {
        for (int j = i + 2; j < bytes.length; j++) {
          if (bytes[j] == '}') {
            return true;
          }
        }
        return false; // a later '{' has no more room for a '}' than this one
      }
    }
    return false;
  }
}
