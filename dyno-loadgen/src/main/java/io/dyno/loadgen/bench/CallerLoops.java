package io.dyno.loadgen.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What one load caller does until the run ends, its deadline passes or the settings no longer want
 * its slot: a blocking call (or pipeline) at a time, or, with {@code async=N}, single commands
 * submitted through the driver's asynchronous API. Every call takes its permits from the read or
 * write rate limiter and is recorded by the {@link LoadRecorder}.
 */
final class CallerLoops {
  private static final long PAUSED_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final Knobs knobs;
  private final Driver driver;
  private final RateLimiter readLimiter;
  private final RateLimiter writeLimiter;
  private final LoadRecorder recorder;
  private final RunFlags flags;
  private Semaphore asyncSemaphore;

  CallerLoops(
      Knobs knobs,
      Driver driver,
      RateLimiter readLimiter,
      RateLimiter writeLimiter,
      LoadRecorder recorder,
      RunFlags flags) {
    this.knobs = knobs;
    this.driver = driver;
    this.readLimiter = readLimiter;
    this.writeLimiter = writeLimiter;
    this.recorder = recorder;
    this.flags = flags;
  }

  /** The body of the caller in slot {@code slot} of {@code kind}. */
  void run(CallerKind kind, int slot, long deadline) {
    if (knobs.config().async > 0) {
      asyncLoop(kind, slot, deadline);
    } else {
      blockingLoop(kind, slot, deadline);
    }
  }

  private boolean goesOn(CallerKind kind, int slot, long deadline) {
    return !flags.stopRequested()
        && System.nanoTime() < deadline
        && slot < kind.wanted(knobs.config());
  }

  private void blockingLoop(CallerKind kind, int slot, long deadline) {
    List<Driver.Op> batch = new ArrayList<>();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (goesOn(kind, slot, deadline)) {
      if (flags.paused()) {
        LockSupport.parkNanos(PAUSED_NAP_NANOS);
        continue;
      }
      BenchConfig c = knobs.config();
      KeyChooser keys = knobs.keyChooser();
      ValueSource values = knobs.values();
      int pmin = c.pipelineMin;
      int pmax = c.pipelineMax;
      int n = pmax <= 1 ? 1 : pmin + r.nextInt(pmax - pmin + 1);
      batch.clear();
      int nReads = 0;
      for (int i = 0; i < n; i++) {
        boolean read = isRead(kind, c, r);
        String key = c.keyPrefix + keys.next();
        batch.add(new Driver.Op(read, key, read ? null : values.next()));
        if (read) nReads++;
      }
      int nWrites = n - nReads;
      if (nReads > 0 && !readLimiter.acquire(nReads, flags::stopRequested)) break;
      if (nWrites > 0 && !writeLimiter.acquire(nWrites, flags::stopRequested)) break;
      long t0 = System.nanoTime();
      try {
        if (pmax <= 1) {
          Driver.Op op = batch.get(0);
          if (op.read()) driver.get(op.key());
          else driver.set(op.key(), op.value());
        } else {
          driver.pipeline(batch);
        }
        recorder.done(nReads, nWrites, System.nanoTime() - t0);
      } catch (Exception e) {
        recorder.failed(n, e);
      }
    }
  }

  private static boolean isRead(CallerKind kind, BenchConfig c, ThreadLocalRandom r) {
    return kind == CallerKind.READ || (kind == CallerKind.MIXED && r.nextInt(100) < c.readPercent);
  }

  /**
   * {@code async=N}: together the callers never have more than N requests unanswered (a
   * semaphore); each completion, on the client's I/O thread, records its latency from submit and
   * returns its permit. The rate limiters, key chooser, read/write mix and values are the blocking
   * loop's.
   */
  private void asyncLoop(CallerKind kind, int slot, long deadline) {
    Semaphore inFlight = asyncPermits();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (goesOn(kind, slot, deadline)) {
      if (flags.paused()) {
        LockSupport.parkNanos(PAUSED_NAP_NANOS);
        continue;
      }
      try {
        if (!inFlight.tryAcquire(20, TimeUnit.MILLISECONDS)) {
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      BenchConfig c = knobs.config();
      boolean read = isRead(kind, c, r);
      String key = c.keyPrefix + knobs.keyChooser().next();
      if (!(read ? readLimiter : writeLimiter).acquire(1, flags::stopRequested)) {
        inFlight.release();
        break;
      }
      long t0 = System.nanoTime();
      CompletableFuture<String> f;
      try {
        f = read ? driver.getAsync(key) : driver.setAsync(key, knobs.values().next());
      } catch (RuntimeException e) {
        inFlight.release();
        recorder.failed(1, e);
        continue;
      }
      f.whenComplete((v, e) -> {
        inFlight.release();
        if (e == null) {
          recorder.done(read ? 1 : 0, read ? 0 : 1, System.nanoTime() - t0);
        } else {
          recorder.failed(
              1, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        }
      });
    }
  }

  /** One semaphore of {@code async} permits for the whole run (all callers share it). */
  private synchronized Semaphore asyncPermits() {
    if (asyncSemaphore == null) {
      asyncSemaphore = new Semaphore(knobs.config().async);
    }
    return asyncSemaphore;
  }

  /** Requests still unanswered in async mode (0 otherwise). */
  synchronized int asyncInFlight() {
    Semaphore s = asyncSemaphore;
    return s == null ? 0 : knobs.config().async - s.availablePermits();
  }
}
