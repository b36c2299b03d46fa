package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.ScatterPart;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.internal.KnownCommands.Kind;
import io.dyno.jedis.internal.CommandTable.Routing;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import redis.clients.jedis.Builder;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The commands queued in one pipeline. {@link #sync} groups every keyed part by its owner node,
 * writes every group to its node before reading any reply (so the nodes work at the same time,
 * from the caller's thread, by the executor's scatter) and hands every response its reply in
 * call order. A group whose node fails is retried on a replica when all its commands
 * are idempotent; otherwise each of its commands gets the failure as its own error.
 */
public final class PipelineBatch {
  /** A response whose failure may be a connection or routing failure, not only an error reply. */
  public static final class DynoResponse<T> extends Response<T> {
    private final JedisFailures failures;
    private volatile RuntimeException failure;

    DynoResponse(Builder<T> builder, JedisFailures failures) {
      super(builder);
      this.failures = failures;
    }

    void fail(RuntimeException e) {
      failure =
          failures.translate(e); // what get() throws is a Jedis exception, as outside pipelines
    }

    /** The failure of this command when it did not get a reply (null otherwise). */
    public RuntimeException failure() {
      return failure;
    }

    @Override
    public T get() {
      if (failure != null) {
        throw failure;
      }
      return super.get();
    }
  }

  private record Entry(
      Plan plan, CommandArguments original, DynoResponse<?> response, Object[] partReplies) {}

  private final ClientCore core;
  private final CallOptions options;
  private final List<Entry> queued = new ArrayList<>();

  public PipelineBatch(ClientCore core, CallOptions options) {
    this.core = core;
    this.options = options;
  }

  /** Plans (and so validates) a command now; refused commands throw here, before anything is sent. */
  public <T> Response<T> add(CommandObject<T> command) {
    Plan plan;
    try {
      plan = core.plan(command.getArguments());
    } catch (RuntimeException e) {
      throw core.failures().translate(e);
    }
    DynoResponse<T> r = new DynoResponse<>(command.getBuilder(), core.failures());
    queued.add(new Entry(plan, command.getArguments(), r, new Object[plan.parts.size()]));
    return r;
  }

  public int size() {
    return queued.size();
  }

  /**
   * Sends everything queued; every response is complete (value or error) on return. Returns the
   * entries' responses in order. On a closed client nothing is sent: every queued response fails
   * with the client-closed failure that is thrown ({@link ClientCore#closedFailure}), so none is left waiting for a reply.
   * Whatever it throws is a Jedis exception ({@link JedisFailures}).
   */
  public List<DynoResponse<?>> sync() {
    try {
      return send();
    } catch (RuntimeException e) {
      throw core.failures().translate(e);
    }
  }

  private List<DynoResponse<?>> send() {
    List<Entry> batch = new ArrayList<>(queued);
    queued.clear();
    if (core.isClosed()) {
      RuntimeException closed =
          core.closedFailure(batch.size() + " pipelined command(s) were not sent");
      for (Entry e : batch) {
        e.response.fail(closed);
      }
      throw closed;
    }
    // Group every keyed part per owner node, keeping call order inside a group.
    Map<Host, List<int[]>> members = new HashMap<>(); // owner -> [entry index, part index]
    Map<Host, List<Host>> candidates = new HashMap<>();
    for (int e = 0; e < batch.size(); e++) {
      Plan p = batch.get(e).plan;
      if (p.spec.routing() == Routing.KEYED || p.spec.routing() == Routing.SPLIT) {
        for (int i = 0; i < p.parts.size(); i++) {
          Plan.Part part = p.parts.get(i);
          members.computeIfAbsent(part.owner(), h -> new ArrayList<>()).add(new int[] {e, i});
          candidates.putIfAbsent(part.owner(), part.candidates());
        }
      }
    }
    List<ScatterPart<JedisNodeConnection, List<Object>>> groups = new ArrayList<>(members.size());
    List<List<int[]>> memberLists = new ArrayList<>(members.size());
    for (Map.Entry<Host, List<int[]>> m : members.entrySet()) {
      List<CommandArguments> commands = new ArrayList<>(m.getValue().size());
      boolean idempotent = true;
      for (int[] x : m.getValue()) {
        Entry e = batch.get(x[0]);
        commands.addAll(e.plan.parts.get(x[1]).commands());
        idempotent &= e.plan.spec.idempotent();
      }
      CallSpec group = core.dyno
          .call("PIPELINE")
          .kind(Kind.WRITE) // commands of any kind: never hedged
          .idempotent(idempotent)
          .on(candidates.get(m.getKey()))
          .options(options)
          .build();
      groups.add(
          new ScatterPart<>(group, new CommandGroup(commands, false, UnaryOperator.identity())));
      memberLists.add(m.getValue());
    }
    core.dyno.scatter(groups, options); // every group is written before any reply is read
    for (int i = 0; i < groups.size(); i++) {
      deliver(batch, memberLists.get(i), groups.get(i));
    }
    List<DynoResponse<?>> out = new ArrayList<>(batch.size());
    for (Entry e : batch) {
      Routing routing = e.plan.spec.routing();
      if (routing != Routing.KEYED && routing != Routing.SPLIT) {
        try {
          setRaw(e.response, core.run(e.plan, options));
        } catch (RuntimeException ex) {
          e.response.fail(ex);
        }
      } else if (e.response.failure() == null) {
        List<Object> replies = Arrays.asList(e.partReplies);
        Object merged;
        try {
          merged = e.plan.merge(replies);
        } catch (RuntimeException ex) {
          e.response.fail(
              ex); // e.g. a stored value that does not decode: this response's error only
          out.add(e.response);
          continue;
        }
        setRaw(e.response, merged);
        core.mirror(e.plan, e.original);
      }
      out.add(e.response);
    }
    return out;
  }

  private static void setRaw(DynoResponse<?> r, Object raw) {
    r.set(raw);
  }

  /** Hands a group's replies to its commands, or its failure to each of them as its own error. */
  private void deliver(List<Entry> batch, List<int[]> members, ScatterPart<?, List<Object>> g) {
    if (g.failure() == null) {
      List<Object> replies = g.result();
      int next = 0;
      for (int[] m : members) {
        Plan.Part part = batch.get(m[0]).plan.parts.get(m[1]);
        int n = part.commands().size();
        try {
          batch.get(m[0]).partReplies[m[1]] = part.combine(
              batch.get(m[0]).plan.spec.merge(), part.asOriginal(replies.subList(next, next + n)));
        } catch (RuntimeException outOfStep) { // this command's own failure, as any other
          batch.get(m[0]).response().fail(outOfStep);
        }
        next += n;
      }
      return;
    }
    for (int[] m : members) {
      Entry e = batch.get(m[0]);
      e.response.fail(core.failures()
          .translate(
              e.plan.spec.name() + " in a pipeline to " + g.owner() + " failed"
                  + (g.call().idempotent()
                      ? ""
                      : " (not retried: the group held non-idempotent commands)")
                  + ": " + g.failure().getMessage(),
              g.failure()));
    }
  }

  /** True when an entry's reply is an error reply (for syncAndReturnAll). */
  static boolean isError(Object raw) {
    return raw instanceof JedisDataException;
  }
}
