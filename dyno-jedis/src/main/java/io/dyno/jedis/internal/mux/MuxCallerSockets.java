package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.CommandArguments;

/**
 * The caller-owned fast path of a shared connection (issue #22): up to {@code callerSockets}
 * blocking sockets beside the channel ({@link MuxDirectSocket}), taken like a pool's. A caller that
 * waits for its reply takes the first free socket, opening it on first use, and writes and reads
 * there itself; when every socket is taken it goes to the channel, and so does every caller while
 * the node's requests in flight average more than half its sockets (callers enough to coalesce,
 * see {@link #coalesce}). So a node's few concurrent callers (the usual case: an
 * application at low concurrency, or one spread over many nodes) never hand a command to the event
 * loop, while under load callers join the channel and their commands coalesce there as before.
 *
 * <p>What a caller socket must not overtake: a request on the channel that no caller waits on (an
 * asynchronous command, a pipeline, or a waited one whose timeout passed) may be the calling
 * thread's own, so while any is there ({@link MuxBooks#detached}) callers use the channel. The
 * channel's other requests belong to threads blocked on them, so they carry no order for this
 * caller: a channel busy with other threads' blocking calls does not keep a caller off its socket
 * (otherwise a node with two or three callers, once on the channel, would stay there). Nor is a
 * socket used while the channel or a socket has waited for a reply more than {@link #STALE_NANOS}:
 * the node may be frozen, and what queues on the channel then fails unsent. The first free socket is
 * taken so that sockets past what the concurrency needs stay unopened.
 * Not used by fork-join workers (see {@link #callerMayUse}), nor by virtual threads: an interrupt
 * closes a socket a virtual thread reads (Java 21+), which would end a call before the outcome of
 * what it sent is known, where a blocking call waits uninterruptibly.
 */
final class MuxCallerSockets {
  /**
   * A caller socket's request unanswered this long makes the node look frozen: new commands then go
   * to the channel and its drain holds them back (unsent) until that request is answered, as behind
   * the channel's own unanswered write. Loopback and same-zone replies take well under this.
   */
  static final long STALE_NANOS = 5_000_000L;

  /** Fixed-point scale of {@link #busyAverage}: 16 = one request. */
  private static final int BUSY_SCALE = 16;

  /** After a socket failed to open, callers use only the open ones for this long (a connect per call would be slow). */
  private static final long OPEN_RETRY_NANOS = 1_000_000_000L;

  /** {@code Thread.isVirtual()}, found once: the release runs on Java 17, which has none. */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private final MuxBooks books;
  private final MuxReplies replies;
  private final MuxExpiry expiry;
  private final Ticker ticker;
  /** Lets a channel drain held back by a stale socket's request run (the writer's). */
  private final Runnable resumeHeldDrain;

  private final MuxDirectSocket[] sockets;
  /** Sockets owed the late reply of a request whose caller gave up. */
  private final AtomicInteger owed = new AtomicInteger();

  private volatile boolean openFailed;
  private volatile long opensResumeAt;
  /**
   * The node's requests in flight (channel and sockets) as each call starts, a moving average over
   * about the last eight calls, times {@link #BUSY_SCALE}. Above half the socket count the node has
   * callers enough to coalesce, which beats a mix of the two paths (whose channel side would carry
   * too few callers to coalesce); below it each caller takes a socket, and the other half of them
   * takes the bursts above the average (callers spread over nodes at random: 16 over 8 nodes put 5
   * on one node 3 % of the time), so that a burst is not handed to the event loop. Updated without
   * a lock: a lost update only delays the average by a call.
   */
  private volatile int busyAverage;

  MuxCallerSockets(
      MuxEndpoint endpoint,
      MuxBooks books,
      MuxCloser closer,
      MuxReplies replies,
      MuxExpiry expiry,
      Runnable resumeHeldDrain) {
    this.books = books;
    this.replies = replies;
    this.expiry = expiry;
    this.ticker = endpoint.settings().ticker();
    this.resumeHeldDrain = resumeHeldDrain;
    this.sockets = new MuxDirectSocket[endpoint.settings().callerSockets()];
    for (int i = 0; i < sockets.length; i++) {
      sockets[i] = new MuxDirectSocket(endpoint, books, closer, this);
    }
  }

  private static MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException olderJava) {
      return null;
    }
  }

  /**
   * Whether the calling thread may use a caller socket: a platform thread that is not a fork-join
   * worker. A worker (parallel streams, {@code CompletableFuture}'s async tasks) blocked in a socket
   * read is not compensated by its pool, whereas waiting for the channel's future is (a managed
   * block): on a one-worker common pool the reading task would starve every other task until its
   * reply.
   */
  static boolean callerMayUse() {
    Thread caller = Thread.currentThread();
    if (caller instanceof ForkJoinWorkerThread) {
      return false;
    }
    if (IS_VIRTUAL == null) {
      return true;
    }
    try {
      return !(boolean) IS_VIRTUAL.invokeExact(caller);
    } catch (Throwable unexpected) {
      return false;
    }
  }

  /**
   * Runs {@code cmd} on the first free caller socket: the request, complete, or null when the caller
   * should use the channel (every socket taken, a request there it could overtake, the node
   * silent, at the in-flight limit, closing, or no socket opens).
   */
  MuxRequest.Single tryCall(
      CommandArguments cmd, long start, long timeoutNanos, boolean errorRepliesFail) {
    if (coalesce(books.permitsTaken()) || stale(start) > 0 || replies.stalledAt(start)) {
      return null; // the channel coalesces, or the node may be frozen: commands wait there, unsent
    }
    for (MuxDirectSocket s : sockets) {
      if (!s.tryHold()) {
        continue;
      }
      if (!s.isOpen() && openFailed && start - opensResumeAt < 0) {
        s.release(false);
        continue; // an open one further on may still be free
      }
      return s.call(cmd, start, timeoutNanos, errorRepliesFail);
    }
    return null; // every socket taken: this command goes to the channel
  }

  /**
   * Takes {@code busy}, the requests in flight as a call starts, into {@link #busyAverage}: whether
   * the node now has callers enough to coalesce, so that the call should go to the channel.
   */
  boolean coalesce(int busy) {
    int average = busyAverage;
    int next = average + (busy * BUSY_SCALE - average) / 8;
    if (next != average) {
      busyAverage = next; // skipped when unchanged: no cache-line traffic under steady load
    }
    return next > sockets.length * BUSY_SCALE / 2;
  }

  /** A socket did not open: only open ones are used for a while. */
  void openFailed() {
    opensResumeAt = ticker.nanoTime() + OPEN_RETRY_NANOS;
    openFailed = true;
  }

  /** Sockets owed a late reply: the tick must run. */
  int owed() {
    return owed.get();
  }

  /** Sockets whose request is stale at {@code now} (see {@link #STALE_NANOS}). */
  int stale(long now) {
    int n = 0;
    for (MuxDirectSocket s : sockets) {
      n += s.staleAt(now) ? 1 : 0;
    }
    return n;
  }

  /** A socket's caller gave up on its reply (any thread). */
  void owes() {
    owed.incrementAndGet();
    expiry.watch();
  }

  /** A socket's owed reply came or its socket closed. */
  void paid() {
    owed.decrementAndGet();
  }

  /** A socket's request that was stale got its answer: a channel drain it held back runs now. */
  void staleAnswered() {
    resumeHeldDrain.run();
  }

  /** Event loop (tick): reads and drops the owed replies that came; true when the connection closed. */
  boolean checkOwedReplies(long now) {
    for (MuxDirectSocket s : sockets) {
      if (s.checkOwedReply(now)) {
        return true;
      }
    }
    return false;
  }

  /** Requests (or owed replies) holding a socket. */
  int inFlight() {
    int n = 0;
    for (MuxDirectSocket s : sockets) {
      n += s.inFlight();
    }
    return n;
  }

  /** Sockets open now. */
  int open() {
    int n = 0;
    for (MuxDirectSocket s : sockets) {
      n += s.isOpen() ? 1 : 0;
    }
    return n;
  }

  long writes() {
    long n = 0;
    for (MuxDirectSocket s : sockets) {
      n += s.writes();
    }
    return n;
  }

  /** Any thread: closes every socket (callers blocked on them wake and fail). */
  void close() {
    for (MuxDirectSocket s : sockets) {
      s.close();
    }
  }
}
