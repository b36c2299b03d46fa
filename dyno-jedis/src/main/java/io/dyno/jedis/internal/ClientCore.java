package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.DynoExecutor;
import io.dyno.core.engine.internal.Operation;
import io.dyno.core.engine.internal.ScatterPart;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.internal.CommandTable.Routing;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What every view of one client shares: the dyno-core executor, the command table, the value codec,
 * and the shadow writer. Runs a {@link Plan} as one {@link CallSpec} per part: one part with
 * {@code execute}, several with the executor's scatter (every part sent before any reply is read,
 * on the caller's thread), or each part asynchronously.
 */
public final class ClientCore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientCore.class);

  private final String applicationName;
  final DynoExecutor<JedisNodeConnection> dyno;
  final Planner planner;
  final ShadowWriter shadow; // may be null
  /**
   * Non-null when the transport carries replies without holding the caller's connection
   * (multiplexed): one-part commands then run asynchronously; true on the transport's own I/O
   * threads, where a blocking call would wait for itself.
   */
  final BooleanSupplier transportThread;

  private final AutoCloseable[] alsoClose;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final HashTagWarning hashTagWarning;
  private final JedisFailures failures;

  public ClientCore(
      String applicationName,
      DynoExecutor<JedisNodeConnection> dyno,
      Planner planner,
      ShadowWriter shadow,
      BooleanSupplier transportThread,
      PublicExceptions exceptions,
      AutoCloseable... alsoClose) {
    this.failures = new JedisFailures(exceptions);
    this.applicationName = applicationName;
    this.hashTagWarning = new HashTagWarning(applicationName);
    this.transportThread = transportThread;
    this.dyno = dyno;
    this.planner = planner;
    this.shadow = shadow;
    this.alsoClose = alsoClose;
  }

  public DynoExecutor<JedisNodeConnection> dyno() {
    return dyno;
  }

  public Topology topology() {
    return dyno.topology();
  }

  public Planner planner() {
    return planner;
  }

  /** {@return how a failure leaving a public call becomes the Jedis exception the caller sees} */
  public JedisFailures failures() {
    return failures;
  }

  public ShadowWriter shadow() {
    return shadow;
  }

  /**
   * Throws {@link #closedFailure the closed client's failure} once the client is closed, so a late
   * call fails at once, naming the client, instead of as whatever the closed engine or transport
   * happens to raise.
   */
  public void ensureOpen(String what) {
    if (closed.get()) {
      throw closedFailure(what);
    }
  }

  public boolean isClosed() {
    return closed.get();
  }

  /** The failure of a call on this closed client ({@link PublicExceptions#clientClosed}); {@code what} says what was refused. */
  public RuntimeException closedFailure(String what) {
    return planner.table().refusals().clientClosed(applicationName, what);
  }

  /** Every command of the client, its views, pipelines and asynchronous API is planned here first. */
  Plan plan(CommandArguments args) {
    if (closed.get()) {
      throw closedFailure(CommandTable.name(args) + " was not sent");
    }
    Plan plan = planner.plan(args, dyno);
    hashTagWarning.check(dyno.topology(), args.getKeys());
    return plan;
  }

  /**
   * The call of {@code plan} with these options, for the engine ({@link CallSpec}): the command's
   * name, kind and idempotency in this shape, the options resolved by the engine. Each part runs it
   * on its own key and candidates ({@link CallSpec#on}).
   */
  CallSpec call(Plan plan, CallOptions options) {
    return dyno.call(plan.spec.name())
        .kind(plan.spec.kind())
        .idempotent(plan.spec.idempotent())
        .options(options)
        .build();
  }

  /**
   * Runs a plan for a caller that waits for its merged raw reply (the blocking API): the one place
   * that chooses between the engine's blocking call, on the caller's thread, and its asynchronous
   * one waited on. Asynchronous: a one-part command on the multiplexed transport (the transport may
   * still do its I/O on the caller's thread, see {@link JedisNodeConnection#submitForWaitingCaller}),
   * and a hedged read on either transport, whose first attempt must stay in flight for the hedge to
   * start (on pooled sockets the engine runs its attempts on its own threads). A command that blocks
   * its connection (BLPOP ...) takes the blocking call to a socket of its own.
   */
  Object runForWaitingCaller(Plan plan, CommandArguments args, CallOptions options) {
    CallSpec call = call(plan, options);
    boolean multiplexed = transportThread != null;
    boolean oneMuxPart = multiplexed && plan.parts.size() == 1;
    if (args.isBlocking() || !(oneMuxPart || call.hedged())) {
      return run(plan, call);
    }
    if (multiplexed && transportThread.getAsBoolean()) {
      throw new IllegalStateException(plan.spec.name()
          + ": a blocking call on the client's I/O thread (a callback of an asynchronous call)"
          + " would wait for its own reply; use the asynchronous API there (async())");
    }
    if (plan.parts.size() == 1) {
      Object raw =
          await(plan.spec.name(), runPartAsync(plan, plan.parts.get(0), call, !call.hedged()));
      return plan.merge(Collections.singletonList(raw));
    }
    return await(plan.spec.name(), runAsync(plan, call, Function.identity()));
  }

  /** Runs every part of a plan with the engine's blocking calls and merges the raw replies. */
  Object run(Plan plan, CallOptions options) {
    return run(plan, call(plan, options));
  }

  private Object run(Plan plan, CallSpec call) {
    List<Plan.Part> parts = plan.parts;
    if (parts.size() == 1) {
      Object raw = runPart(plan, parts.get(0), call);
      return plan.merge(Collections.singletonList(raw));
    }
    if (plan.spec.routing() == Routing.EVERY_NODE) {
      return runEveryNode(plan, call);
    }
    List<ScatterPart<JedisNodeConnection, List<Object>>> scattered = new ArrayList<>(parts.size());
    for (Plan.Part p : parts) {
      scattered.add(new ScatterPart<>(call.on(p.key(), p.candidates()), CommandGroup.of(p)));
    }
    dyno.scatter(scattered, call.options());
    List<Object> replies = new ArrayList<>(parts.size());
    for (int i = 0; i < parts.size(); i++) {
      // result() throws the first failing part in the command's own order, as a plain call reports
      // it
      replies.add(parts.get(i).combine(plan.spec.merge(), scattered.get(i).result()));
    }
    return plan.merge(replies);
  }

  private Object runEveryNode(Plan plan, CallSpec call) {
    List<Object> ok = new ArrayList<>();
    RuntimeException firstFailure = null;
    for (Plan.Part p : plan.parts) {
      try {
        ok.add(runPart(plan, p, call));
      } catch (JedisDataException e) {
        throw e;
      } catch (RuntimeException e) {
        // A node that is down cannot hold the script; it loads it again when asked after recovery.
        log.warn("{} failed on {}: {}", plan.spec.name(), p.owner(), e.toString());
        if (firstFailure == null) {
          firstFailure = e;
        }
      }
    }
    if (ok.isEmpty()) {
      throw firstFailure != null
          ? firstFailure
          : new DynoException(plan.spec.name() + ": no node to run on");
    }
    return plan.merge(ok);
  }

  private Object runPart(Plan plan, Plan.Part part, CallSpec call) {
    Operation<JedisNodeConnection, Object> op = part.pieces() == null
        ? c -> c.execute(part.args())
        : c -> part.combine(plan.spec.merge(), CommandGroup.of(part).run(c));
    return dyno.execute(call.on(part.key(), part.candidates()), op);
  }

  /**
   * Runs every part of a plan without holding the caller: each part is an asynchronous call of the
   * executor (sharing its routing, failover, retries, deadline, hedging and metrics); the merged raw
   * reply goes through {@code finish} on the thread that completed the last part.
   */
  <T> CompletableFuture<T> runAsync(Plan plan, CallOptions options, Function<Object, T> finish) {
    return runAsync(plan, call(plan, options), finish);
  }

  private <T> CompletableFuture<T> runAsync(Plan plan, CallSpec call, Function<Object, T> finish) {
    List<Plan.Part> parts = plan.parts;
    if (parts.size() == 1) {
      return runPartAsync(plan, parts.get(0), call, false)
          .thenApply(raw -> finish.apply(plan.merge(Collections.singletonList(raw))));
    }
    List<CompletableFuture<Object>> futures = new ArrayList<>(parts.size());
    for (Plan.Part p : parts) {
      futures.add(runPartAsync(plan, p, call, false));
    }
    boolean everyNode = plan.spec.routing() == Routing.EVERY_NODE;
    return CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new))
        .handle((ignored, failure) -> {
          List<Object> replies = new ArrayList<>(parts.size());
          RuntimeException firstFailure = null;
          for (int i = 0; i < futures.size(); i++) {
            try {
              replies.add(futures.get(i).join());
            } catch (CompletionException e) {
              RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
              if (!everyNode || cause instanceof JedisDataException) {
                throw cause; // the first failing part in the command's own order, as a blocking
                // call reports it
              }
              log.warn(
                  "{} failed on {}: {}", plan.spec.name(), parts.get(i).owner(), cause.toString());
              firstFailure = firstFailure == null ? cause : firstFailure;
            }
          }
          if (replies.isEmpty()) {
            throw firstFailure != null
                ? firstFailure
                : new DynoException(plan.spec.name() + ": no node to run on");
          }
          return finish.apply(plan.merge(replies));
        });
  }

  /**
   * One part as an asynchronous call of the engine. {@code callerWaits}: the caller blocks on the
   * result, so the transport may do its I/O on the caller's thread when the node's connection lets
   * it.
   */
  private CompletableFuture<Object> runPartAsync(
      Plan plan, Plan.Part part, CallSpec call, boolean callerWaits) {
    CallSpec onPart = call.on(part.key(), part.candidates());
    if (part.pieces() == null) {
      CommandArguments args = part.args();
      return dyno.executeAsync(
          onPart, callerWaits ? c -> c.submitForWaitingCaller(args) : c -> c.submit(args));
    }
    CommandGroup group = CommandGroup.of(part);
    return dyno.executeAsync(
        onPart,
        c -> c.submitAll(group.commands())
            .thenApply(replies -> part.combine(plan.spec.merge(), group.settle(replies))));
  }

  /**
   * Waits for a call's end, ignoring interrupts as a socket read does (the interrupt status stays
   * set for the caller): a command already sent cannot be called back, so an interrupted wait would
   * report as failed a command that may have run (a counter retrying it would count it twice). The
   * wait always ends: each attempt is bounded by its read timeout, the call by its deadline.
   */
  private static <T> T await(String command, CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new DynoException(command + ": " + cause, cause);
    }
  }

  /** Mirrors a successful write to the shadow cluster for the selected keys. */
  void mirror(Plan plan, CommandArguments original) {
    if (shadow == null || !plan.spec.mirrored()) {
      return;
    }
    List<Object> keys = original.getKeys();
    if (keys.isEmpty()) {
      return;
    }
    if (plan.spec.routing() == Routing.SPLIT && keys.size() > 1) {
      List<Integer> selected = new ArrayList<>();
      for (int i = 0; i < keys.size(); i++) {
        if (shadow.selects(keys.get(i))) {
          selected.add(i);
        }
      }
      if (selected.size() == keys.size()) {
        shadow.offer(original);
      } else if (!selected.isEmpty()) {
        shadow.offer(Planner.subset(plan.spec, original, selected));
      }
    } else if (shadow.selects(keys.get(0))) {
      shadow.offer(original);
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (shadow != null) {
      shadow.close();
    }
    dyno.close();
    for (AutoCloseable c : alsoClose) {
      try {
        c.close();
      } catch (Exception e) {
        log.warn("closing {} failed: {}", c, e.toString());
      }
    }
  }
}
