package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoExecutor;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.internal.CommandTable.Routing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What every view of one client shares: the dyno-core executor, the command table, the value codec,
 * the shadow writer and a small daemon pool that runs the per-node parts of split commands.
 */
public final class ClientCore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientCore.class);

  final DynoExecutor<JedisNodeConnection> dyno;
  final Planner planner;
  final ShadowWriter shadow; // may be null
  private final ExecutorService parallel;
  private final AutoCloseable[] alsoClose;
  private final AtomicBoolean closed = new AtomicBoolean();

  public ClientCore(DynoExecutor<JedisNodeConnection> dyno, Planner planner, ShadowWriter shadow, AutoCloseable... alsoClose) {
    this.dyno = dyno;
    this.planner = planner;
    this.shadow = shadow;
    this.alsoClose = alsoClose;
    AtomicInteger n = new AtomicInteger();
    this.parallel = Executors.newFixedThreadPool(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()), r -> {
      Thread t = new Thread(r, "dyno-jedis-split-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
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

  public ShadowWriter shadow() {
    return shadow;
  }

  Plan plan(CommandArguments args) {
    return planner.plan(args, dyno.topology());
  }

  /** Runs every part of a plan (the first on the caller's thread) and merges the raw replies. */
  Object run(Plan plan, CallOptions options) {
    List<Plan.Part> parts = plan.parts;
    if (parts.size() == 1) {
      Object raw = runPart(plan, parts.get(0), options);
      return plan.merge(java.util.Collections.singletonList(raw));
    }
    if (plan.spec.routing() == Routing.EVERY_NODE) {
      return runEveryNode(plan, options);
    }
    List<CompletableFuture<Object>> futures = new ArrayList<>(parts.size());
    for (int i = 1; i < parts.size(); i++) {
      Plan.Part p = parts.get(i);
      futures.add(CompletableFuture.supplyAsync(() -> runPart(plan, p, options), parallel));
    }
    List<Object> replies = new ArrayList<>(parts.size());
    replies.add(runPart(plan, parts.get(0), options));
    for (CompletableFuture<Object> f : futures) {
      try {
        replies.add(f.join());
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException re ? re : e;
      }
    }
    return plan.merge(replies);
  }

  /** Runs a task on the client's daemon pool (per-node groups of a pipeline). */
  CompletableFuture<Void> async(Runnable task) {
    return CompletableFuture.runAsync(task, parallel);
  }

  private Object runEveryNode(Plan plan, CallOptions options) {
    List<Object> ok = new ArrayList<>();
    RuntimeException firstFailure = null;
    for (Plan.Part p : plan.parts) {
      try {
        ok.add(runPart(plan, p, options));
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
      throw firstFailure != null ? firstFailure : new DynoException(plan.spec.name() + ": no node to run on");
    }
    return plan.merge(ok);
  }

  private Object runPart(Plan plan, Plan.Part part, CallOptions options) {
    String name = plan.spec.name();
    boolean idem = plan.spec.idempotent();
    if (part.key() instanceof byte[] k) {
      return dyno.execute(name, k, idem, options, c -> c.execute(part.args()));
    }
    if (part.key() != null) {
      return dyno.execute(name, String.valueOf(part.key()), idem, options, c -> c.execute(part.args()));
    }
    return dyno.executeOn(name, part.candidates(), idem, options, c -> c.execute(part.args()));
  }

  /** Mirrors a successful write to the shadow cluster for the selected keys. */
  void mirror(Plan plan, CommandArguments original) {
    if (shadow == null || !plan.spec.write()) {
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
    parallel.shutdownNow();
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
