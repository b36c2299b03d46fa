package io.dyno.jedis;

import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.internal.DynoCommandExecutor;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.params.SetParams;

/**
 * The asynchronous face of a {@link DynoJedisClient} ({@link DynoJedisClient#async()}): each
 * command returns at once with a {@link CompletableFuture}; on the multiplexed transport many
 * callers' requests then share each round trip, so one thread can keep hundreds in flight.
 * Routing, failover, retries, deadlines, consistency, hedged reads, the shadow cluster and metrics
 * are the client's, exactly as for a blocking call; a failure completes the future with the
 * exception the blocking call would throw.
 *
 * <p>The common commands have typed methods here; any other keyed command runs through
 * {@link #execute(CommandObject)} with Jedis's own {@link CommandObjects}, e.g.
 * {@code async.execute(commands.zrangeByScore("board", 0, 100))}. Futures complete on the client's
 * I/O threads: a callback must not block (no blocking Dyno call in it; chain the asynchronous ones,
 * or hand blocking work to an executor of your own).
 */
public final class DynoJedisAsync {
  private final DynoCommandExecutor executor;
  private final CommandObjects commands;

  DynoJedisAsync(DynoCommandExecutor executor, CommandObjects commands) {
    this.executor = executor;
    this.commands = commands;
  }

  /** Any command Jedis can build, e.g. {@code execute(commands().hincrByFloat("h", "f", 0.5))}. */
  public <T> CompletableFuture<T> execute(CommandObject<T> command) {
    return executor.executeAsync(Objects.requireNonNull(command, "command"));
  }

  /** The builders of this client's commands (a null key or value is refused, naming the command). */
  public CommandObjects commands() {
    return commands;
  }

  /** A view whose calls run with {@code options} (consistency, deadline, hedging, retries); shares everything else. */
  public DynoJedisAsync withOptions(CallOptions options) {
    Objects.requireNonNull(options, "options");
    return new DynoJedisAsync(new DynoCommandExecutor(executor.core(), options, false), commands);
  }

  public CallOptions callOptions() {
    return executor.options();
  }

  // ---------------------------------------------------------------- strings

  public CompletableFuture<String> get(String key) { return execute(commands.get(key)); }
  public CompletableFuture<byte[]> get(byte[] key) { return execute(commands.get(key)); }
  public CompletableFuture<String> set(String key, String value) { return execute(commands.set(key, value)); }
  public CompletableFuture<String> set(byte[] key, byte[] value) { return execute(commands.set(key, value)); }
  public CompletableFuture<String> set(String key, String value, SetParams params) {
    return execute(commands.set(key, value, params));
  }
  public CompletableFuture<String> setex(String key, long seconds, String value) {
    return execute(commands.setex(key, seconds, value));
  }
  public CompletableFuture<Long> setnx(String key, String value) { return execute(commands.setnx(key, value)); }
  public CompletableFuture<List<String>> mget(String... keys) { return execute(commands.mget(keys)); }
  public CompletableFuture<String> mset(String... keysAndValues) { return execute(commands.mset(keysAndValues)); }
  public CompletableFuture<Long> incr(String key) { return execute(commands.incr(key)); }
  public CompletableFuture<Long> incrBy(String key, long increment) { return execute(commands.incrBy(key, increment)); }
  public CompletableFuture<Long> decr(String key) { return execute(commands.decr(key)); }
  public CompletableFuture<Long> append(String key, String value) { return execute(commands.append(key, value)); }
  public CompletableFuture<Long> strlen(String key) { return execute(commands.strlen(key)); }

  // ---------------------------------------------------------------- keys

  public CompletableFuture<Long> del(String key) { return execute(commands.del(key)); }
  public CompletableFuture<Long> del(String... keys) { return execute(commands.del(keys)); }
  public CompletableFuture<Boolean> exists(String key) { return execute(commands.exists(key)); }
  public CompletableFuture<Long> expire(String key, long seconds) { return execute(commands.expire(key, seconds)); }
  public CompletableFuture<Long> ttl(String key) { return execute(commands.ttl(key)); }
  public CompletableFuture<Long> persist(String key) { return execute(commands.persist(key)); }

  // ---------------------------------------------------------------- hashes

  public CompletableFuture<String> hget(String key, String field) { return execute(commands.hget(key, field)); }
  public CompletableFuture<Long> hset(String key, String field, String value) {
    return execute(commands.hset(key, field, value));
  }
  public CompletableFuture<Long> hset(String key, Map<String, String> hash) { return execute(commands.hset(key, hash)); }
  public CompletableFuture<Map<String, String>> hgetAll(String key) { return execute(commands.hgetAll(key)); }
  public CompletableFuture<List<String>> hmget(String key, String... fields) { return execute(commands.hmget(key, fields)); }
  public CompletableFuture<Long> hdel(String key, String... fields) { return execute(commands.hdel(key, fields)); }
  public CompletableFuture<Long> hincrBy(String key, String field, long increment) {
    return execute(commands.hincrBy(key, field, increment));
  }

  // ---------------------------------------------------------------- lists, sets, sorted sets

  public CompletableFuture<Long> lpush(String key, String... values) { return execute(commands.lpush(key, values)); }
  public CompletableFuture<Long> rpush(String key, String... values) { return execute(commands.rpush(key, values)); }
  public CompletableFuture<List<String>> lrange(String key, long start, long stop) {
    return execute(commands.lrange(key, start, stop));
  }
  public CompletableFuture<Long> sadd(String key, String... members) { return execute(commands.sadd(key, members)); }
  public CompletableFuture<Set<String>> smembers(String key) { return execute(commands.smembers(key)); }
  public CompletableFuture<Boolean> sismember(String key, String member) {
    return execute(commands.sismember(key, member));
  }
  public CompletableFuture<Long> zadd(String key, double score, String member) {
    return execute(commands.zadd(key, score, member));
  }
  public CompletableFuture<Double> zscore(String key, String member) { return execute(commands.zscore(key, member)); }
  public CompletableFuture<List<String>> zrange(String key, long start, long stop) {
    return execute(commands.zrange(key, start, stop));
  }
}
