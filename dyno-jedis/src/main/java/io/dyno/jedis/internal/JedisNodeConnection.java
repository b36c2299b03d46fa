package io.dyno.jedis.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.jedis.internal.mux.DynomiteWire;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * What the Jedis client needs of a connection to one node, whatever carries it: a socket of its
 * own ({@link SocketNodeConnection}, pooled by dyno-core) or a share of a multiplexed one. Replies
 * are raw, as Jedis's protocol reader gives them (byte[], Long, List, null; error replies as
 * {@link redis.clients.jedis.exceptions.JedisDataException} elements in lists).
 */
public interface JedisNodeConnection extends NodeConnection {
  /**
   * The message of an error reply that came without text (Redis never sends one), on both
   * transports: a message-less exception would leave the caller nothing to go on.
   */
  String BLANK_ERROR_REPLY = DynomiteWire.BLANK_ERROR_REPLY;

  /** Dynomite's per-connection consistency command, sent by both transports. */
  ProtocolCommand DYNO_CONFIG = DynomiteWire.DYNO_CONFIG;

  /** As {@link NodeConnection#setConsistency}; failures are unchecked (Jedis's exceptions). */
  @Override
  void setConsistency(ConsistencyLevel level);

  /** As {@link NodeConnection#ping}; failures are unchecked. */
  @Override
  void ping();

  @Override
  void setReadTimeout(Duration timeout);

  /** Sends one command and returns its raw reply (a Redis error reply throws JedisDataException). */
  Object execute(CommandArguments args);

  /** {@code SET key value PX ttl}, for the engine's replication check of a returning node. */
  @Override
  default void probeWrite(byte[] key, byte[] value, Duration ttl) {
    execute(new CommandArguments(Protocol.Command.SET)
        .key(key)
        .add(value)
        .add(Protocol.Keyword.PX)
        .add(ttl.toMillis()));
  }

  /** {@code GET key}, for the engine's replication check of a returning node. */
  @Override
  default byte[] probeRead(byte[] key) {
    return (byte[]) execute(new CommandArguments(Protocol.Command.GET).key(key));
  }

  /** Writes every command and flushes, without reading (the first half of a scattered part). */
  void send(List<CommandArguments> commands);

  /** The {@code n} replies of what {@link #send} wrote. */
  List<Object> receive(int n);

  /**
   * Sends one command without waiting for its reply: the future completes with the raw reply, or
   * fails (an error reply with its JedisDataException). A blocking connection answers before it
   * returns (the default); the multiplexed transport's lease returns at once.
   */
  default CompletableFuture<Object> submit(CommandArguments args) {
    try {
      return CompletableFuture.completedFuture(execute(args));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * As {@link #submit}, for a caller that waits for the reply on this thread (a blocking call):
   * the multiplexed transport's lease may then run the command on the caller's thread when its
   * node's connection is idle, returning the future complete. Never called on a transport thread.
   */
  default CompletableFuture<Object> submitForWaitingCaller(CommandArguments args) {
    return submit(args);
  }

  /** As {@link #submit}, for several commands whose replies come back as one list (error replies in it). */
  default CompletableFuture<List<Object>> submitAll(List<CommandArguments> commands) {
    try {
      send(commands);
      return CompletableFuture.completedFuture(receive(commands.size()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
