package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.routing.Topology;
import io.dyno.core.testing.ManualScheduler;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;

/**
 * The harness of the call contract: one engine on fake connections and a manual clock, and one
 * way to make a call in each {@link Mode} — {blocking, async} x {pooled, multiplexed}. Every
 * contract test class is a {@code @ParameterizedClass} over the modes, so each rule is checked on
 * each path a command can take:
 * <ul>
 *   <li>blocking, pooled: {@code execute} with a blocking operation on a pooled socket ({@link FakeFactory.Conn#call});
 *       a read (its {@code CallSpec} of kind READ) may be hedged;
 *   <li>async, pooled: {@code executeAsync} on a blocking transport (the reply is there when {@code start} returns;
 *       the factory says the transport blocks, {@link FakeFactory#blocking});
 *   <li>async, multiplexed: {@code executeAsync}, the reply delivered later by the "wire" (the transport's I/O thread);
 *   <li>blocking, multiplexed: as dyno-jedis runs a one-part command on the multiplexed transport —
 *       the asynchronous call, waited on.
 * </ul>
 * Waiting never sleeps: {@link #await} delivers replies, runs the I/O executor's tasks and moves the
 * clock to the next timer (a backoff) until the call is done. (A test whose pooled attempts wait for
 * a reply the test sends later runs the engine's I/O tasks on threads of their own: {@link #ioOnThreads}.)
 */
abstract class CallContract {
  enum Mode {
    BLOCKING_POOLED(false, false),
    ASYNC_POOLED(true, false),
    ASYNC_MULTIPLEXED(true, true),
    BLOCKING_MULTIPLEXED(false, true);

    final boolean async;
    final boolean multiplexed;

    Mode(boolean async, boolean multiplexed) {
      this.async = async;
      this.multiplexed = multiplexed;
    }

    /** True when the engine's blocking {@code Call} carries the command (a hedged read excepted); otherwise its {@code AsyncCall}. */
    boolean blockingEngineCall() {
      return this == BLOCKING_POOLED;
    }
  }

  /** What a fake node does with one command: its reply, or a throw. */
  @FunctionalInterface
  interface FakeOp {
    String run(FakeFactory.Conn c) throws Exception;
  }

  static final Host A = TestTopology.host("rack1", 7001);
  static final Host B = TestTopology.host("rack2", 7002);
  static final Host C = TestTopology.host("rack3", 7003);

  final Mode mode;
  final ManualScheduler clock = new ManualScheduler();
  final FakeFactory fakes = new FakeFactory();
  final DefaultRegistry registry = new DefaultRegistry();
  /** Every wait of a call: the sleeper's (blocking) or a one-shot timer's delay (asynchronous). */
  final List<Long> waits = new CopyOnWriteArrayList<>();

  final Queue<Runnable> io = new ArrayDeque<>();
  final Queue<Runnable> wire = new ArrayDeque<>();
  final AtomicReference<Topology> topology = new AtomicReference<>(
      TestTopology.builder("rack1").node(A, 0).node(B, 0).node(C, 0).build());
  /**
   * Off: the engine's I/O executor runs its tasks inline (a hand-off, a reconnect, a probe). On: they
   * wait for {@link #runIo}, for a test that checks on which thread a step runs. (A borrow waiting
   * for a queued reconnect would wait forever on the manual clock, so it is off by default.)
   */
  volatile boolean queueIo;
  /**
   * On: the engine's I/O tasks each run on a thread of their own, for a test whose attempts block
   * until the test answers them (a hedged read on a blocking transport).
   */
  volatile boolean ioOnThreads;
  /** With {@link #ioOnThreads}: the engine's I/O tasks handed over and not finished yet. */
  final AtomicInteger ioTasksRunning = new AtomicInteger();

  Engine<FakeFactory.Conn> engine;

  CallContract(Mode mode) {
    this.mode = mode;
    fakes.blocking = !mode.multiplexed;
  }

  static DynoConfigBuilder config() {
    return DynoConfig.builder().applicationName("test").retryPolicy(RetryPolicy.retryNTimes(2));
  }

  Engine<FakeFactory.Conn> engine(DynoConfigBuilder config) {
    queueIo = false;
    engine = (Engine<FakeFactory.Conn>) DynoEngine.builder(fakes)
        .config(config.build())
        .topology(topology::get)
        .registry(registry)
        .scheduler(new RecordingScheduler())
        .ioExecutor(r -> {
          if (ioOnThreads) {
            ioTasksRunning.incrementAndGet();
            Thread t = new Thread(
                () -> {
                  try {
                    r.run();
                  } finally {
                    ioTasksRunning.decrementAndGet();
                  }
                },
                "test-io");
            t.setDaemon(true);
            t.start();
          } else if (queueIo) {
            io.add(r);
          } else {
            r.run();
          }
        })
        .random(() -> 0.5)
        .sleeper(nanos -> {
          waits.add(nanos);
          clock.advance(Duration.ofNanos(nanos));
        })
        .registerMBean(false)
        .build();
    return engine;
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  // ------------------------------------------------------------------ calls, in the mode under
  // test

  String get() {
    return get(CallOptions.defaults());
  }

  String get(CallOptions options) {
    return call("GET", "k", true, options, c -> c.call("GET"));
  }

  String incr(CallOptions options) {
    return call("INCR", "k", false, options, c -> c.call("INCR"));
  }

  /** Runs {@code fn} as the command on the key's owners and waits for its end; a failure is thrown as the caller gets it. */
  String call(String command, String key, boolean idempotent, CallOptions options, FakeOp fn) {
    if (mode.blockingEngineCall()) {
      return command.equals("GET")
          ? engine.execute(
              engine
                  .call(command)
                  .key(key)
                  .on(engine.route(key))
                  .idempotent(idempotent)
                  .options(options)
                  .build(),
              fn::run)
          : engine.execute(
              engine
                  .call(command)
                  .key(key)
                  .idempotent(idempotent)
                  .options(options)
                  .build(),
              fn::run);
    }
    return await(start(command, key, idempotent, options, fn));
  }

  /** Starts {@code fn} as an asynchronous call (not in {@link Mode#BLOCKING_POOLED}). */
  CompletableFuture<String> start(
      String command, String key, boolean idempotent, CallOptions options, FakeOp fn) {
    boolean read = command.equals("GET");
    return engine.executeAsync(
        engine
            .call(command)
            .key(key)
            .on(engine.route(key))
            .idempotent(idempotent)
            .options(options)
            .build(),
        c -> {
          if (!mode.multiplexed) {
            return answer(fn, c);
          }
          // The node works on the command as it is sent (with the read timeout of that moment); its
          // reply travels later.
          CompletableFuture<String> answer = answer(fn, c);
          CompletableFuture<String> reply = new CompletableFuture<>();
          wire.add(() -> answer.whenComplete((r, t) -> {
            if (t != null) {
              reply.completeExceptionally(t);
            } else {
              reply.complete(r);
            }
          }));
          return reply;
        });
  }

  private static CompletableFuture<String> answer(FakeOp fn, FakeFactory.Conn c) {
    try {
      return CompletableFuture.completedFuture(fn.run(c));
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Drives the call to its end without sleeping: replies, I/O tasks, then the next timer; throws what the caller would get. */
  <T> T await(CompletableFuture<T> f) {
    for (int rounds = 0; !f.isDone(); rounds++) {
      assertThat(rounds).as("the call never ends").isLessThan(10_000);
      if (runIo() + deliver() == 0 && !nextTimer()) {
        throw new AssertionError(
            "the call is stuck: no reply, task or timer is left to move it on");
      }
    }
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
  }

  /** Runs what the calls handed to the I/O executor (and what that hands on); how many ran. */
  int runIo() {
    int n = 0;
    for (Runnable r; (r = io.poll()) != null; n++) {
      r.run();
    }
    return n;
  }

  /** The multiplexed transport delivers every reply on its way; how many. */
  int deliver() {
    int n = 0;
    for (Runnable r; (r = wire.poll()) != null; n++) {
      r.run();
    }
    return n;
  }

  private final List<long[]> timers = new CopyOnWriteArrayList<>(); // {due, live}

  /** Moves the clock to the earliest one-shot timer still pending; false when there is none. */
  private boolean nextTimer() {
    long due =
        timers.stream().filter(t -> t[1] == 1).mapToLong(t -> t[0]).min().orElse(Long.MIN_VALUE);
    if (due == Long.MIN_VALUE) {
      return false;
    }
    clock.advance(Duration.ofNanos(Math.max(0, due - clock.nanoTime())));
    return true;
  }

  double counter(String name, String... tags) {
    return registry
        .counter(registry.createId(name).withTag("app", "test").withTags(tags))
        .count();
  }

  long opCount(String command, String outcome, String rack) {
    return registry
        .timer(registry
            .createId(DynoMetrics.OP_LATENCY)
            .withTag("app", "test")
            .withTag("command", command)
            .withTag("outcome", outcome)
            .withTag("rack", rack))
        .count();
  }

  static FakeFactory.Conn only(List<FakeFactory.Conn> conns, Host h) {
    List<FakeFactory.Conn> of = conns.stream().filter(c -> c.host().equals(h)).toList();
    assertThat(of).hasSize(1);
    return of.get(0);
  }

  /** The manual clock, recording each one-shot timer (a backoff, a hedge, a probe) so {@link #await} can move to it. */
  private final class RecordingScheduler implements Scheduler, Ticker {
    @Override
    public long nanoTime() {
      return clock.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
      long[] timer = {clock.nanoTime() + delay.toNanos(), 1};
      waits.add(delay.toNanos());
      timers.add(timer);
      Cancellable c = clock.schedule(
          () -> {
            timer[1] = 0;
            task.run();
          },
          delay);
      return () -> {
        timer[1] = 0;
        c.cancel();
      };
    }

    @Override
    public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
      return clock.scheduleAtFixedRate(task, initialDelay, period);
    }

    @Override
    public void close() {
      clock.close();
    }
  }
}
