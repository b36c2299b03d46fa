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
 *
 * <p>A null key or value is refused at once, by the method itself, with an
 * {@link IllegalArgumentException} naming the command (Redis has no null); every other failure,
 * including a refusal ({@link UnsupportedCommandException}, {@link CrossNodeKeysException}) and an
 * error reply ({@code JedisDataException}, e.g. INCR of a non-integer), completes the future
 * exceptionally. Commands that add to what is there (INCR, APPEND, LPUSH, ...) are not sent again
 * after a failure that leaves unknown whether they ran, unless the view's options allow it
 * ({@link CallOptions#withRetryNonIdempotent}). Times are in seconds, as in Redis.
 */
public final class DynoJedisAsync {
  private final DynoCommandExecutor executor;
  private final CommandObjects commands;

  DynoJedisAsync(DynoCommandExecutor executor, CommandObjects commands) {
    this.executor = executor;
    this.commands = commands;
  }

  /** Runs any command Jedis can build, e.g.
   * {@code execute(commands().hincrByFloat("h", "f", 0.5))}, routed and checked as the blocking
   * client runs it. A command that blocks its connection until answered (BLPOP, ...) is refused on
   * the multiplexed transport: call it on the {@link DynoJedisClient}, which gives it a socket of
   * its own.
   * @param <T> the command's result type, as Jedis builds it
   * @param command the command, built by {@link #commands()} (or any {@link CommandObjects})
   * @return the command's result, or its failure */
  public <T> CompletableFuture<T> execute(CommandObject<T> command) {
    return executor.executeAsync(Objects.requireNonNull(command, "command"));
  }

  /** {@return the builders of this client's commands, for {@link #execute}} They refuse a null key
   * or argument at once, naming the command. */
  public CommandObjects commands() {
    return commands;
  }

  /** {@return a view whose calls run with {@code options}} It shares connections, topology and
   * everything else with this one; making it is cheap.
   * @param options consistency, deadline, hedging, retrying non-idempotent commands; a field left
   *     null takes the client's default */
  public DynoJedisAsync withOptions(CallOptions options) {
    Objects.requireNonNull(options, "options");
    return new DynoJedisAsync(new DynoCommandExecutor(executor.core(), options, false), commands);
  }

  /** {@return the call options this view's calls run with} */
  public CallOptions callOptions() {
    return executor.options();
  }

  // ---------------------------------------------------------------- strings

  /** {@return the value of {@code key}, or null when the key does not exist} GET; a value the
   * client stored compressed comes back decompressed.
   * @param key the key */
  public CompletableFuture<String> get(String key) {
    return execute(commands.get(key));
  }

  /** {@return the value of {@code key}, or null when the key does not exist} As
   * {@link #get(String)}, for binary keys and values.
   * @param key the key */
  public CompletableFuture<byte[]> get(byte[] key) {
    return execute(commands.get(key));
  }

  /** {@return "OK"} SET: replaces any value and time to live the key had; a value longer than the
   * client's compression threshold is stored compressed.
   * @param key the key
   * @param value the value */
  public CompletableFuture<String> set(String key, String value) {
    return execute(commands.set(key, value));
  }

  /** {@return "OK"} As {@link #set(String, String)}, for binary keys and values.
   * @param key the key
   * @param value the value */
  public CompletableFuture<String> set(byte[] key, byte[] value) {
    return execute(commands.set(key, value));
  }

  /** {@return "OK", or null when NX or XX kept the value from being set} SET with options: NX (only
   * when absent), XX (only when present), EX seconds, PX milliseconds, EXAT/PXAT (an instant),
   * KEEPTTL. With NX it is not sent again after an unknown outcome: a retry would report a lock the
   * first attempt took as refused.
   * @param key the key
   * @param value the value
   * @param params the options */
  public CompletableFuture<String> set(String key, String value, SetParams params) {
    return execute(commands.set(key, value, params));
  }

  /** {@return "OK"} SETEX: sets the value with a time to live; Redis answers an error for a time to
   * live that is not positive.
   * @param key the key
   * @param seconds the time to live, in seconds
   * @param value the value */
  public CompletableFuture<String> setex(String key, long seconds, String value) {
    return execute(commands.setex(key, seconds, value));
  }

  /** {@return 1 when the value was set, 0 when the key already existed} SETNX; not sent again after
   * an unknown outcome (a retry would answer 0 to the caller whose first attempt set it).
   * @param key the key
   * @param value the value */
  public CompletableFuture<Long> setnx(String key, String value) {
    return execute(commands.setnx(key, value));
  }

  /** {@return the values in the order of {@code keys}, null for a key that does not exist or holds
   * another type} MGET over the cluster: the keys are grouped by owner node and the groups read in
   * parallel (through Dynomite as one GET per key, pipelined per owner), so the values are not one
   * snapshot.
   * @param keys the keys, on any nodes */
  public CompletableFuture<List<String>> mget(String... keys) {
    return execute(commands.mget(keys));
  }

  /** {@return "OK" once every owner has answered} MSET over the cluster: the pairs are grouped by
   * owner node and each group written to its owner (through Dynomite as one SET per key,
   * pipelined). Not atomic: a reader may see some keys set before others, and a failure may leave
   * some set.
   * @param keysAndValues key, value, key, value, ... */
  public CompletableFuture<String> mset(String... keysAndValues) {
    return execute(commands.mset(keysAndValues));
  }

  /** {@return the value after adding 1} INCR; a missing key counts as 0, a value that is not an
   * integer fails the future with Redis's error.
   * @param key the key */
  public CompletableFuture<Long> incr(String key) {
    return execute(commands.incr(key));
  }

  /** {@return the value after adding {@code increment}} INCRBY; a missing key counts as 0.
   * @param key the key
   * @param increment what to add; negative subtracts */
  public CompletableFuture<Long> incrBy(String key, long increment) {
    return execute(commands.incrBy(key, increment));
  }

  /** {@return the value after subtracting 1} DECR; a missing key counts as 0.
   * @param key the key */
  public CompletableFuture<Long> decr(String key) {
    return execute(commands.decr(key));
  }

  /** {@return the value's length after appending, in bytes} APPEND; a missing key is created. It
   * works on the stored bytes: do not append to values the client stores compressed.
   * @param key the key
   * @param value what to append */
  public CompletableFuture<Long> append(String key, String value) {
    return execute(commands.append(key, value));
  }

  /** {@return the value's length in bytes, 0 when the key does not exist} STRLEN, of the value as
   * stored: a compressed one reports its compressed length.
   * @param key the key */
  public CompletableFuture<Long> strlen(String key) {
    return execute(commands.strlen(key));
  }

  // ---------------------------------------------------------------- keys

  /** {@return 1 when the key existed and was removed, else 0} DEL.
   * @param key the key */
  public CompletableFuture<Long> del(String key) {
    return execute(commands.del(key));
  }

  /** {@return how many of the keys existed and were removed} DEL over the cluster: one DEL per
   * owner node, sent in parallel, the counts summed; not atomic across nodes.
   * @param keys the keys, on any nodes */
  public CompletableFuture<Long> del(String... keys) {
    return execute(commands.del(keys));
  }

  /** {@return whether the key exists} EXISTS.
   * @param key the key */
  public CompletableFuture<Boolean> exists(String key) {
    return execute(commands.exists(key));
  }

  /** {@return 1 when the time to live was set, 0 when the key does not exist} EXPIRE; a time to
   * live that is not positive deletes the key.
   * @param key the key
   * @param seconds the time to live, in seconds */
  public CompletableFuture<Long> expire(String key, long seconds) {
    return execute(commands.expire(key, seconds));
  }

  /** {@return the time to live left, in seconds: -1 when the key has none, -2 when it does not
   * exist} TTL.
   * @param key the key */
  public CompletableFuture<Long> ttl(String key) {
    return execute(commands.ttl(key));
  }

  /** {@return 1 when a time to live was removed, 0 when the key had none or does not exist}
   * PERSIST.
   * @param key the key */
  public CompletableFuture<Long> persist(String key) {
    return execute(commands.persist(key));
  }

  // ---------------------------------------------------------------- hashes

  /** {@return the field's value, or null when the field or the key does not exist} HGET; a value
   * the client stored compressed comes back decompressed.
   * @param key the hash's key
   * @param field the field */
  public CompletableFuture<String> hget(String key, String field) {
    return execute(commands.hget(key, field));
  }

  /** {@return 1 when the field is new, 0 when its value was replaced} HSET of one field; a value
   * longer than the compression threshold is stored compressed.
   * @param key the hash's key
   * @param field the field
   * @param value the value */
  public CompletableFuture<Long> hset(String key, String field, String value) {
    return execute(commands.hset(key, field, value));
  }

  /** {@return how many of the fields are new} HSET of several fields. Dynomite takes one field per
   * HSET, so through it this is one HSET per field, pipelined to the key's owner and the counts
   * summed: not atomic, a reader may see some fields before the others.
   * @param key the hash's key
   * @param hash the fields and their values */
  public CompletableFuture<Long> hset(String key, Map<String, String> hash) {
    return execute(commands.hset(key, hash));
  }

  /** {@return every field and value of the hash, empty when the key does not exist} HGETALL; values
   * stored compressed come back decompressed.
   * @param key the hash's key */
  public CompletableFuture<Map<String, String>> hgetAll(String key) {
    return execute(commands.hgetAll(key));
  }

  /** {@return the values of {@code fields} in their order, null for a field that does not exist}
   * HMGET; values stored compressed come back decompressed.
   * @param key the hash's key
   * @param fields the fields */
  public CompletableFuture<List<String>> hmget(String key, String... fields) {
    return execute(commands.hmget(key, fields));
  }

  /** {@return how many of the fields existed and were removed} HDEL.
   * @param key the hash's key
   * @param fields the fields */
  public CompletableFuture<Long> hdel(String key, String... fields) {
    return execute(commands.hdel(key, fields));
  }

  /** {@return the field's value after adding {@code increment}} HINCRBY; a missing field counts as
   * 0.
   * @param key the hash's key
   * @param field the field
   * @param increment what to add; negative subtracts */
  public CompletableFuture<Long> hincrBy(String key, String field, long increment) {
    return execute(commands.hincrBy(key, field, increment));
  }

  // ---------------------------------------------------------------- lists, sets, sorted sets

  /** {@return the list's length after the push} LPUSH: each value in turn at the head, so the last
   * ends up first.
   * @param key the list's key
   * @param values the values */
  public CompletableFuture<Long> lpush(String key, String... values) {
    return execute(commands.lpush(key, values));
  }

  /** {@return the list's length after the push} RPUSH: the values at the tail, in order.
   * @param key the list's key
   * @param values the values */
  public CompletableFuture<Long> rpush(String key, String... values) {
    return execute(commands.rpush(key, values));
  }

  /** {@return the elements from index {@code start} to {@code stop}, both included; empty when the
   * key does not exist} LRANGE; 0 is the head, a negative index counts from the tail (-1 the last).
   * @param key the list's key
   * @param start the first index
   * @param stop the last index */
  public CompletableFuture<List<String>> lrange(String key, long start, long stop) {
    return execute(commands.lrange(key, start, stop));
  }

  /** {@return how many of the members are new} SADD.
   * @param key the set's key
   * @param members the members */
  public CompletableFuture<Long> sadd(String key, String... members) {
    return execute(commands.sadd(key, members));
  }

  /** {@return every member of the set, empty when the key does not exist} SMEMBERS.
   * @param key the set's key */
  public CompletableFuture<Set<String>> smembers(String key) {
    return execute(commands.smembers(key));
  }

  /** {@return whether {@code member} is in the set} SISMEMBER.
   * @param key the set's key
   * @param member the member */
  public CompletableFuture<Boolean> sismember(String key, String member) {
    return execute(commands.sismember(key, member));
  }

  /** {@return 1 when the member is new, 0 when only its score was updated} ZADD.
   * @param key the sorted set's key
   * @param score the member's score
   * @param member the member */
  public CompletableFuture<Long> zadd(String key, double score, String member) {
    return execute(commands.zadd(key, score, member));
  }

  /** {@return the member's score, or null when the member or the key does not exist} ZSCORE.
   * @param key the sorted set's key
   * @param member the member */
  public CompletableFuture<Double> zscore(String key, String member) {
    return execute(commands.zscore(key, member));
  }

  /** {@return the members ranked {@code start} to {@code stop}, both included, lowest score first;
   * empty when the key does not exist} ZRANGE by rank; a negative rank counts from the highest
   * score (-1 the last).
   * @param key the sorted set's key
   * @param start the first rank
   * @param stop the last rank */
  public CompletableFuture<List<String>> zrange(String key, long start, long stop) {
    return execute(commands.zrange(key, start, stop));
  }
}
