package io.dyno.jedis;

import io.dyno.core.internal.KeyText;
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
  /**
   * The client's own refusal; applications have no reason to make one. The keys are shown escaped
   * where they are not printable text, as redis-cli shows them.
   *
   * @param command the refused command
   * @param firstKey the command's first key ({@code String} or {@code byte[]})
   * @param otherKey a key owned by another node than {@code firstKey}'s
   */
  public CrossNodeKeysException(String command, Object firstKey, Object otherKey) {
    super(command + ": keys " + KeyText.show(firstKey) + " and " + KeyText.show(otherKey)
        + " are owned by different nodes, and " + command + " needs all its keys on one node;"
        + " co-locate them with a hash tag: hash_tag: \"{}\" in every node's dynomite.yml and"
        + " DynoJedisClient.builder().hashtag(\"{}\"), then keys {tag}:a and {tag}:b share a"
        + " node (without a hash tag, a cluster has no way to put two keys together)");
  }
}
