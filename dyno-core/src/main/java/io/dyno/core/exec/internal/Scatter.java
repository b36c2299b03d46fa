package io.dyno.core.exec.internal;

import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.ScatterPart;
import io.dyno.core.exec.CallOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Runs the parts of a scattered call on the caller's thread with their round trips overlapped.
 *
 * <p>A {@link Call} lends its connection only for the duration of one operation, and each part
 * must stay a call of its own (routing, borrow, consistency, retry/failover, metrics). So the
 * parts nest: part i's operation sends its commands, then runs part i+1 as a call (which sends,
 * nests further, and reads), and only then reads part i's replies. Every send goes out before the
 * first read, the nodes work at the same time, and no thread hand-off is needed.
 *
 * <p>Rules that keep it correct:
 * <ul>
 *   <li>A part's failure never escapes into the operation of the part around it (it would be taken
 *       as a failure of that part's connection): it is stored in the part.
 *   <li>The inner parts run at most once. When part i is re-run (failover or retry), that attempt
 *       sends and reads part i alone. When part i fails before it ran them, they run afterwards.
 *   <li>Each part holds its connection while the parts inside it run. At most {@link #MAX_HELD}
 *       are held at once, and parts are taken in one global order (by owner node), so callers
 *       borrow from node pools in the same order: two callers never wait on each other's connections.
 *   <li>The deadline is for the whole scatter: every part's call shares it ({@link Deadline}), and
 *       a part whose reply is read after the parts inside it has its read timeout capped at the
 *       time left then. Each part's call decides its own retries and failovers ({@link CallDecider}).
 * </ul>
 */
final class Scatter<C extends NodeConnection> {
  /** Parts whose connections one caller holds at once; more parts run in successive windows. */
  static final int MAX_HELD = 16;

  private static final Comparator<ScatterPart<?, ?>> BY_OWNER =
      Comparator.comparing(p -> p.owner().id());

  private final RequestPath<C> path;
  private final List<ScatterPart<C, ?>> parts;
  private final Deadline deadline; // of the whole scatter, shared by its parts' calls

  private Scatter(RequestPath<C> path, CallOptions options, List<ScatterPart<C, ?>> parts) {
    this.path = path;
    this.parts = parts;
    this.deadline = path.deadline(options, path.ticker.nanoTime());
  }

  static <C extends NodeConnection> void run(
      RequestPath<C> path, List<? extends ScatterPart<C, ?>> parts, CallOptions options) {
    List<ScatterPart<C, ?>> ordered = new ArrayList<>(parts);
    ordered.sort(BY_OWNER);
    Scatter<C> s = new Scatter<>(path, options, ordered);
    for (int from = 0; from < ordered.size(); from += MAX_HELD) {
      s.runFrom(from, Math.min(ordered.size(), from + MAX_HELD));
    }
  }

  private void runFrom(int i, int end) {
    if (i < end) {
      runPart(parts.get(i), i, end);
    }
  }

  private <R> void runPart(ScatterPart<C, R> part, int i, int end) {
    boolean[] innerRan = {i + 1 == end};
    try {
      // A part whose turn comes after the deadline is given up by its call's decider, before any
      // borrow.
      Call<C, R> call = path.start(part.call(), deadline);
      part.complete(call.run(conn -> {
        part.operation().send(conn);
        if (!innerRan[0]) {
          innerRan[0] = true;
          runFrom(i + 1, end); // never throws a part's failure: it is stored in the part
          call.capReadTimeoutAtDeadline();
        }
        return part.operation().receive(conn);
      }));
    } catch (RuntimeException e) {
      part.fail(e);
    }
    if (!innerRan[0]) {
      innerRan[0] = true;
      runFrom(i + 1, end);
    }
  }
}
