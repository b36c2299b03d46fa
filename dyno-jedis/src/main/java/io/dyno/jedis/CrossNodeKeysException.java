package io.dyno.jedis;

import io.dyno.core.DynoException;

/**
 * A command whose keys must live on one node (EVAL, SINTER, RPOPLPUSH, SMOVE, ...) was given keys
 * owned by different nodes. Co-locate such keys with a hash tag: with the cluster's hashtag
 * {@code "{}"}, {@code {user1}:a} and {@code {user1}:b} both hash as {@code user1}.
 */
public class CrossNodeKeysException extends DynoException {
  public CrossNodeKeysException(String command, Object firstKey, Object otherKey) {
    super(command + ": keys " + show(firstKey) + " and " + show(otherKey)
        + " are owned by different nodes, and " + command + " needs all its keys on one node;"
        + " put them under one hash tag (e.g. {tag}:a, {tag}:b with hashtag \"{}\")");
  }

  static String show(Object key) {
    return key instanceof byte[] b ? "\"" + new String(b, java.nio.charset.StandardCharsets.UTF_8) + "\"" : "\"" + key + "\"";
  }
}
