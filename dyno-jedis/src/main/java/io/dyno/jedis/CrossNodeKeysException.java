package io.dyno.jedis;

import java.nio.charset.StandardCharsets;
import redis.clients.jedis.exceptions.JedisClusterOperationException;

/**
 * A command whose keys must live on one node (EVAL, SINTER, RPOPLPUSH, SMOVE, ...) was given keys
 * owned by different nodes. Co-locate such keys with a hash tag: with the cluster's hashtag
 * {@code "{}"}, {@code {user1}:a} and {@code {user1}:b} both hash as {@code user1}.
 *
 * <p>A {@link JedisClusterOperationException} because that is what Jedis's own cluster client
 * raises, before sending, for a command whose keys span hash slots: code written against
 * {@code JedisCluster} (or catching any {@code JedisException}) catches it unchanged.
 */
public class CrossNodeKeysException extends JedisClusterOperationException {
  public CrossNodeKeysException(String command, Object firstKey, Object otherKey) {
    super(command + ": keys " + show(firstKey) + " and " + show(otherKey)
        + " are owned by different nodes, and " + command + " needs all its keys on one node;"
        + " put them under one hash tag (e.g. {tag}:a, {tag}:b with hashtag \"{}\")");
  }

  static String show(Object key) {
    return key instanceof byte[] b ? "\"" + new String(b, StandardCharsets.UTF_8) + "\"" : "\"" + key + "\"";
  }
}
