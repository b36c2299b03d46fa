package io.dyno.core.exec.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The engine's own threads for hedged reads' attempts on a transport that blocks until the reply:
 * each attempt holds one while it reads, so there are as many as such attempts in flight, and none
 * before the first (an engine whose reads are never hedged this way never makes the pool). Idle
 * threads leave after 30 s; all are daemons.
 */
final class AttemptThreads implements Executor {
  private final String app;
  private ThreadPoolExecutor pool; // guarded by this
  private boolean closed; // guarded by this

  AttemptThreads(String app) {
    this.app = app;
  }

  @Override
  public synchronized void execute(Runnable task) {
    if (closed) {
      throw new RejectedExecutionException("the Dyno engine " + app + " is closed");
    }
    if (pool == null) {
      AtomicInteger n = new AtomicInteger();
      pool = new ThreadPoolExecutor(
          0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "dyno-" + app + "-read-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
    }
    pool.execute(task);
  }

  /** Stops the threads (their reads end within the socket timeout). Idempotent. */
  synchronized void close() {
    closed = true;
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
