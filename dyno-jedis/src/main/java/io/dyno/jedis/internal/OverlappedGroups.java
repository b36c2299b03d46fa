package io.dyno.jedis.internal;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoEngine;
import io.dyno.core.exec.DynoExecutor;
import io.dyno.core.exec.Operation;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Runs several groups of commands, one group per node, on the caller's thread with their network
 * round trips overlapped: every group is written and flushed before any group's replies are read.
 *
 * <p>Why this shape: the engine's {@link DynoExecutor} lends a connection only for the duration of
 * one {@link Operation}, and a group must stay inside the engine so that it keeps routing, borrow,
 * consistency, retry/failover, deadline and metrics. So the groups are nested: group i's operation
 * writes and flushes its commands, then runs group i+1 through the engine (which writes, nests
 * further, and reads), and only then reads group i's replies. Every write goes out before the first
 * read, the nodes work at the same time, and no thread hand-off is needed. (Before, each group ran
 * on a small shared daemon pool: one hand-off per group, and with 40 callers at most 4 groups in
 * flight at once — measured as pipelines being no faster than single commands.)
 *
 * <p>Rules that keep it correct:
 * <ul>
 *   <li>A group's failure never escapes into the operation of the group around it (it would be
 *       taken as a failure of that group's connection): it is stored in the group.
 *   <li>The inner groups run at most once. When the engine re-runs group i (failover or retry),
 *       that attempt writes and reads group i alone. When group i fails without having run them,
 *       they run afterwards.
 *   <li>Each group holds its connection while the groups inside it run. At most
 *       {@link #MAX_NESTED} groups are held at once, and callers order groups the same way
 *       (see {@link #byHost}), so threads borrow from node pools in one global order: two callers
 *       never wait on each other's connections.
 *   <li>A deadline is for the whole call: each group gets the time left of it, so nesting cannot
 *       stretch it. (A group's reply read happens after the groups inside it; its socket read
 *       timeout was set by the engine when it started, so the overshoot is at most that read, for
 *       replies that were already requested before the deadline.)
 *   <li>Metrics: one engine operation per group, as before; the time of an outer group includes
 *       the groups nested inside it.
 * </ul>
 */
final class OverlappedGroups {
  /** Groups whose connections one caller holds at once; more groups run in successive windows. */
  static final int MAX_NESTED = 16;

  /** One node's share of a call. */
  static final class Group {
    final String command;
    final Object key; // non-null: routed by the engine (String or byte[]); null: run on candidates
    final List<Host> candidates;
    final List<CommandArguments> commands;
    final boolean idempotent;
    final boolean errorRepliesThrow;
    final java.util.function.UnaryOperator<List<Object>> replyView;
    List<Object> replies;
    RuntimeException failure;

    /**
     * @param errorRepliesThrow true for a single command outside a pipeline: its error reply is
     *     thrown inside the operation, as a plain call does, so a Dynomite replica error fails over
     *     and a data error reaches the caller. In a pipeline, error replies stay per command.
     */
    Group(String command, Object key, List<Host> candidates, List<CommandArguments> commands, boolean idempotent,
        boolean errorRepliesThrow) {
      this(command, key, candidates, commands, idempotent, errorRepliesThrow, java.util.function.UnaryOperator.identity());
    }

    /** @param replyView turns the replies read into those the caller's command would have had (see Plan.Part#asOriginal) */
    Group(String command, Object key, List<Host> candidates, List<CommandArguments> commands, boolean idempotent,
        boolean errorRepliesThrow, java.util.function.UnaryOperator<List<Object>> replyView) {
      this.replyView = replyView;
      this.command = command;
      this.key = key;
      this.candidates = candidates;
      this.commands = commands;
      this.idempotent = idempotent;
      this.errorRepliesThrow = errorRepliesThrow;
    }

    Host owner() {
      return candidates.get(0);
    }
  }

  /** A stable order of groups shared by every caller: by owner node. */
  static final java.util.Comparator<Group> byHost = java.util.Comparator.comparing(g -> g.owner().id());

  private final DynoExecutor<JedisNodeConnection> dyno;
  private final CallOptions options;
  private final List<Group> groups;
  private final long deadlineNanos; // System.nanoTime() based; Long.MAX_VALUE: no deadline
  private final Duration deadline;

  private OverlappedGroups(DynoExecutor<JedisNodeConnection> dyno, CallOptions options, List<Group> groups) {
    this.dyno = dyno;
    this.options = options == null ? CallOptions.defaults() : options;
    this.groups = groups;
    Duration d = this.options.deadline();
    if (d == null && dyno instanceof DynoEngine<?> engine) {
      d = engine.config().requestDeadline();
    }
    this.deadline = d;
    this.deadlineNanos = d == null ? Long.MAX_VALUE : System.nanoTime() + d.toNanos();
  }

  /** Runs every group; on return each group has its replies (in command order) or its failure. */
  static void run(DynoExecutor<JedisNodeConnection> dyno, CallOptions options, List<Group> groups) {
    OverlappedGroups run = new OverlappedGroups(dyno, options, groups);
    for (int from = 0; from < groups.size(); from += MAX_NESTED) {
      run.runFrom(from, Math.min(groups.size(), from + MAX_NESTED));
    }
  }

  private void runFrom(int i, int end) {
    if (i >= end) {
      return;
    }
    Group g = groups.get(i);
    boolean last = i + 1 == end;
    boolean[] innerRan = {last};
    try {
      CallOptions o = optionsNow(g);
      Operation<JedisNodeConnection, List<Object>> op = c -> {
        Connection jc = c.jedisConnection();
        for (CommandArguments cmd : g.commands) {
          jc.sendCommand(cmd);
        }
        int restore = -1;
        if (!innerRan[0]) {
          jc.getMany(0); // flushes the writes without reading (Connection.flush is not public)
          innerRan[0] = true;
          runFrom(i + 1, end); // never throws a group failure: it is stored in the group
          restore = capReadAtDeadline(jc);
        }
        List<Object> replies;
        try {
          replies = g.replyView.apply(jc.getMany(g.commands.size()));
        } finally {
          if (restore >= 0) {
            restoreReadTimeout(jc, restore);
          }
        }
        if (g.errorRepliesThrow) {
          for (Object r : replies) {
            if (r instanceof JedisDataException e) {
              throw e; // all replies were read: the connection stays in step
            }
          }
        }
        return replies;
      };
      g.replies = g.key instanceof byte[] k ? dyno.execute(g.command, k, g.idempotent, o, op)
          : g.key != null ? dyno.execute(g.command, String.valueOf(g.key), g.idempotent, o, op)
          : dyno.executeOn(g.command, g.candidates, g.idempotent, o, op);
    } catch (RuntimeException e) {
      g.failure = e;
    }
    if (!innerRan[0]) {
      innerRan[0] = true;
      runFrom(i + 1, end);
    }
  }

  /**
   * After the inner groups ran, the read timeout the engine set when this group started may reach
   * past the call's deadline: cap it at the time left. Returns the timeout to put back (the
   * engine's, so its own bookkeeping stays true), or -1 when nothing was changed.
   */
  private int capReadAtDeadline(Connection jc) {
    if (deadline == null) {
      return -1;
    }
    long leftMillis = Math.max(1, (deadlineNanos - System.nanoTime() + 999_999) / 1_000_000);
    int now = jc.getSoTimeout();
    if (now != 0 && now <= leftMillis) {
      return -1;
    }
    jc.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis));
    return now;
  }

  private static void restoreReadTimeout(Connection jc, int millis) {
    try {
      jc.setSoTimeout(millis);
    } catch (RuntimeException e) {
      // The read failed and closed the socket: the engine discards this connection anyway.
    }
  }

  /** The call's options with the deadline shortened to the time left of the whole call. */
  private CallOptions optionsNow(Group g) {
    if (deadline == null) {
      return options;
    }
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      throw new DeadlineExceededException(g.command + " to " + g.owner() + ": deadline of " + deadline.toMillis()
          + " ms passed before this node's part could start", 0, null);
    }
    return options.withDeadline(Duration.ofNanos(left));
  }
}
