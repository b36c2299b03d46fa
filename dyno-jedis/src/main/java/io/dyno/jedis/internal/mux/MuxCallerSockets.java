package io.dyno.jedis.internal.mux;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.CommandArguments;

/**
 * The caller-owned fast path of a shared connection (issue #22): up to {@code callerSockets}
 * blocking sockets beside the channel ({@link MuxDirectSocket}), taken like a pool's. A caller that
 * waits for its reply and finds the channel idle (nothing written or queued there) takes the first
 * free socket, opening it on first use, and writes and reads there itself; when every socket is
 * taken it goes to the channel, and so does every caller for the next 200 ms (more callers than
 * sockets: coalescing wins). So a node's few concurrent callers (the usual case: an application
 * at low concurrency, or one spread over many nodes) never hand a command to the event loop, while
 * under load the channel is busy, callers join it, and their commands coalesce there as before.
 *
 * <p>Why the channel must be idle: a command waiting or unanswered there may be the same caller's
 * (an asynchronous one it did not wait for), and a caller socket would let the next overtake it.
 * The first free socket is taken so that sockets past what the concurrency needs stay unopened.
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

  /**
   * After a caller found every socket taken, the channel carries every command for this long: with
   * more callers than sockets on the node, coalescing on the channel beats a mix of the two paths
   * (whose channel side would carry too few callers to coalesce).
   */
  private static final long CONTENDED_NANOS = 200_000_000L;

  /** After a socket failed to open, callers use only the open ones for this long (a connect per call would be slow). */
  private static final long OPEN_RETRY_NANOS = 1_000_000_000L;

  /** {@code Thread.isVirtual()}, found once: the release runs on Java 17, which has none. */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  private final MuxConnection c;
  private final MuxDirectSocket[] sockets;
  /** Sockets owed the late reply of a request whose caller gave up. */
  private final AtomicInteger owed = new AtomicInteger();

  private volatile boolean openFailed;
  private volatile long opensResumeAt;
  private volatile boolean contended;
  private volatile long channelOnlyUntil;

  MuxCallerSockets(MuxConnection c, int n) {
    this.c = c;
    this.sockets = new MuxDirectSocket[n];
    for (int i = 0; i < n; i++) {
      sockets[i] = new MuxDirectSocket(c, this);
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
   * should use the channel (every socket taken, the channel busy, at the in-flight limit, closing,
   * or no socket opens).
   */
  MuxRequest.Single tryCall(
      CommandArguments cmd, long start, long timeoutNanos, boolean errorRepliesFail) {
    if ((contended && start - channelOnlyUntil < 0) || stale(start) > 0) {
      return null; // the channel coalesces, or the node may be frozen: commands wait there, unsent
    }
    boolean taken = true;
    for (MuxDirectSocket s : sockets) {
      if (!s.tryHold()) {
        continue;
      }
      if (!s.isOpen() && openFailed && start - opensResumeAt < 0) {
        s.release(false);
        taken = false;
        continue; // an open one further on may still be free
      }
      return s.call(cmd, start, timeoutNanos, errorRepliesFail);
    }
    if (taken) {
      channelOnlyUntil = start + CONTENDED_NANOS;
      contended = true;
    }
    return null;
  }

  /** A socket did not open: only open ones are used for a while. */
  void openFailed() {
    opensResumeAt = c.ticker.nanoTime() + OPEN_RETRY_NANOS;
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
    c.expiry.watch();
  }

  /** A socket's owed reply came or its socket closed. */
  void paid() {
    owed.decrementAndGet();
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
