package io.dyno.recipes.lock;

import io.dyno.core.Host;
import io.dyno.core.time.Ticker;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Plain Redis connections to each voter's datastore port, and the fan-out of one request to all
 * voters in parallel. A round returns as soon as its outcome is decided (a majority said yes, or a
 * majority can no longer say yes), so a hung voter costs nothing once the others have answered.
 *
 * <p>Each voter admits at most {@code maxConnections} requests in flight; a hung voter therefore
 * pins at most that many threads, and further requests to it fail at once as "busy".
 */
final class VoterPool implements AutoCloseable {
  private final Duration timeout;
  private final int maxConnections;
  private final Ticker ticker;
  private final Map<String, Voter> voters = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor executor;
  private volatile boolean closed;

  /** {@code ticker}: the lock's clock, on which a round's deadline is measured (the waiting is real). */
  VoterPool(Duration timeout, int maxConnections, Ticker ticker) {
    this.timeout = timeout;
    this.maxConnections = maxConnections;
    this.ticker = ticker;
    AtomicInteger n = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(
        0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "dyno-lock-io-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  /** One voter's answer: a value, or the reason it gave none. */
  record Reply(Host host, Object value, String error) {
    static final Object PENDING = new Object();

    /** Answered (possibly "no"). */
    boolean ok() {
      return error == null && value != PENDING;
    }

    /** Could not answer: unreachable, timed out, busy or DOWN. */
    boolean failed() {
      return error != null;
    }
  }

  /**
   * The replies of one round, in arrival order; voters that never answered carry an error. Also
   * holds, per voter, the completion of the request sent to it, so a follow-up request (a release
   * after an acquire) can be ordered after it even when the round stopped waiting early.
   */
  record Round(List<Reply> replies, Map<Host, CompletableFuture<Void>> done) {
    List<Reply> matching(Predicate<Object> p) {
      return replies.stream().filter(r -> r.ok() && p.test(r.value())).toList();
    }

    /** Voters that could not answer; those not waited for (the outcome was already decided) are not among them. */
    List<Reply> failed() {
      return replies.stream().filter(Reply::failed).toList();
    }
  }

  Round run(
      List<Host> hosts, Function<UnifiedJedis, Object> call, int quorum, Predicate<Object> yes) {
    return run(hosts, call, quorum, yes, null);
  }

  /**
   * Sends {@code call} to every voter and waits until {@code quorum} replies satisfy {@code yes}, or
   * so many failed or said no that quorum is out of reach, or every voter answered, or the deadline.
   * With {@code after}, a voter's request is sent only once that round's request to it completed:
   * otherwise a release could overtake the acquire it undoes and leave a stray lock key.
   */
  Round run(
      List<Host> hosts,
      Function<UnifiedJedis, Object> call,
      int quorum,
      Predicate<Object> yes,
      Round after) {
    LinkedBlockingQueue<Reply> queue = new LinkedBlockingQueue<>();
    Map<Host, Reply> replies = new LinkedHashMap<>();
    Map<Host, CompletableFuture<Void>> done = new HashMap<>();
    int sent = 0;
    for (Host h : hosts) {
      if (closed) {
        replies.put(h, new Reply(h, null, "lock client closed"));
      } else if (!h.isUp()) {
        replies.put(h, new Reply(h, null, "reported DOWN by the host supplier"));
      } else {
        Voter v = voter(h);
        CompletableFuture<Void> previous = after == null ? null : after.done().get(h);
        if (previous == null || previous.isDone()) {
          if (!v.inFlight.tryAcquire()) {
            replies.put(
                h,
                new Reply(h, null, "busy: " + maxConnections + " requests already waiting on it"));
            continue;
          }
          done.put(h, CompletableFuture.runAsync(() -> send(v, h, call, queue), executor));
        } else {
          // Chained: no permit is held while waiting for the earlier request.
          done.put(
              h,
              previous.thenRunAsync(
                  () -> {
                    if (v.inFlight.tryAcquire()) {
                      send(v, h, call, queue);
                    } else {
                      queue.add(new Reply(
                          h, null, "busy: " + maxConnections + " requests already waiting on it"));
                    }
                  },
                  executor));
        }
        sent++;
      }
    }
    long deadline =
        ticker.nanoTime() + 2 * timeout.toNanos(); // connect + read, each bounded by timeout
    int received = 0;
    while (received < sent) {
      if (decided(replies.values(), hosts.size(), quorum, yes)) {
        break;
      }
      Reply r;
      try {
        r = queue.poll(deadline - ticker.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (r == null) {
        break;
      }
      replies.put(r.host(), r);
      received++;
    }
    boolean decided = decided(replies.values(), hosts.size(), quorum, yes);
    List<Reply> all = new ArrayList<>(replies.values());
    for (Host h : hosts) {
      if (!replies.containsKey(h)) {
        all.add(decided ? new Reply(h, Reply.PENDING, null) : new Reply(h, null, noReply()));
      }
    }
    return new Round(all, done);
  }

  /** Runs on an I/O thread holding one of the voter's permits. */
  private void send(
      Voter v, Host h, Function<UnifiedJedis, Object> call, LinkedBlockingQueue<Reply> queue) {
    try {
      queue.add(new Reply(h, call.apply(v.client()), null));
    } catch (RuntimeException e) {
      queue.add(new Reply(h, null, describe(e)));
    } finally {
      v.inFlight.release();
    }
  }

  private static boolean decided(
      Iterable<Reply> replies, int n, int quorum, Predicate<Object> yes) {
    int ayes = 0;
    int others = 0;
    for (Reply r : replies) {
      if (r.ok() && yes.test(r.value())) {
        ayes++;
      } else {
        others++;
      }
    }
    return ayes >= quorum || others > n - quorum;
  }

  private String noReply() {
    return "no reply within " + timeout.toMillis() + " ms (hung or slow)";
  }

  private String describe(RuntimeException e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root instanceof SocketTimeoutException) {
      return noReply();
    }
    String m = e.getMessage();
    String rm = root == e ? null : root.toString();
    return e.getClass().getSimpleName()
        + (m != null ? ": " + m : "")
        + (rm != null ? " (" + rm + ")" : "");
  }

  private Voter voter(Host h) {
    return voters.computeIfAbsent(VoterSelection.endpoint(h), k -> new Voter(h));
  }

  @Override
  public void close() {
    closed = true;
    for (Voter v : voters.values()) {
      v.close();
    }
    voters.clear();
    executor.shutdownNow();
  }

  private final class Voter {
    final Host host;
    final Semaphore inFlight = new Semaphore(maxConnections);
    private RedisClient client;
    private boolean closed;

    Voter(Host h) {
      this.host = h;
    }

    /** Created on first use, on an I/O thread: building a client may touch the network. */
    synchronized RedisClient client() {
      if (closed) {
        throw new IllegalStateException("lock client closed");
      }
      if (client == null) {
        client = create(host);
      }
      return client;
    }

    synchronized void close() {
      closed = true;
      if (client != null) {
        client.close();
      }
    }

    private RedisClient create(Host h) {
      int ms = (int) Math.max(1, timeout.toMillis());
      DefaultJedisClientConfig.Builder cfg = DefaultJedisClientConfig.builder()
          .connectionTimeoutMillis(ms)
          .socketTimeoutMillis(ms)
          .clientName("dyno-lock")
          .resp2(); // plain replies (Long, List); no HELLO round trip
      if (h.password() != null) {
        cfg.password(h.password());
      }
      ConnectionPoolConfig pool = new ConnectionPoolConfig();
      pool.setMaxTotal(maxConnections);
      pool.setMaxIdle(maxConnections);
      pool.setMinIdle(0);
      pool.setMaxWait(timeout);
      pool.setTestOnBorrow(false);
      pool.setJmxEnabled(false);
      return RedisClient.builder()
          .hostAndPort(h.address(), h.datastorePort())
          .clientConfig(cfg.build())
          .poolConfig(pool)
          .build();
    }
  }
}
