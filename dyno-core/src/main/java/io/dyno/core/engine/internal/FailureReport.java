package io.dyno.core.engine.internal;

import io.dyno.core.FailureKind;
import java.util.Objects;

/**
 * What a driver says about one failed attempt, in one answer (see
 * {@link NodeConnectionFactory#report}): whether any of the command left the client, what kind of
 * failure it was, whether the same node may take the command again, and whether the node itself
 * could not be reached.
 *
 * <p>The engine's rules follow from these facts alone: a command that was not sent may go to
 * another replica whatever its idempotency, and costs its connection nothing; a sent one is re-run
 * only when idempotent (or allowed); the kind says whether the connection is kept and the node
 * blamed ({@link FailureKind}). A node blamed (a sent command's I/O failure or timeout, or a node
 * that refused the connection the command needed) loses health, so that it leaves rotation.
 *
 * @param sent some of the command may have reached the node, so its effect is unknown
 * @param kind what the failure means for the connection and the node
 * @param sameNodeMayRetake (unsent only) the node itself is fine, e.g. the shared connection closed
 *     before writing the command: the same node may take it again on another connection
 * @param nodeUnreachable (unsent only) no connection to the node could be opened for the command:
 *     nothing was sent, and the node is blamed as for an I/O failure
 * @param nodeSilentNanos (unsent only; 0: unknown) the command waited behind an earlier one that the
 *     node has left unanswered this long (a multiplexed connection queues behind a write in flight):
 *     judged as a reply that never came, so a silent node leaves rotation though its queued
 *     commands never left the client
 */
public record FailureReport(
    boolean sent,
    FailureKind kind,
    boolean sameNodeMayRetake,
    boolean nodeUnreachable,
    long nodeSilentNanos) {

  /**
   * Checks that the facts agree.
   *
   * @param sent some of the command may have reached the node
   * @param kind what the failure means; not null
   * @param sameNodeMayRetake the same node may take the command again (unsent only)
   * @param nodeUnreachable no connection to the node could be opened (unsent only)
   * @param nodeSilentNanos how long the node has left an earlier command unanswered (unsent only)
   * @throws IllegalArgumentException when a sent command says the same node may retake it or that
   *     its node was unreachable, or an unreachable node is said to be able to retake it
   */
  public FailureReport {
    Objects.requireNonNull(kind, "kind");
    if (sent && (sameNodeMayRetake || nodeUnreachable)) {
      throw new IllegalArgumentException(
          "sameNodeMayRetake and nodeUnreachable are only for a command that was not sent");
    }
    if (sent && nodeSilentNanos != 0) {
      throw new IllegalArgumentException("nodeSilentNanos is only for a command that was not sent");
    }
    if (sameNodeMayRetake && nodeUnreachable) {
      throw new IllegalArgumentException("an unreachable node may not retake the command");
    }
  }

  /**
   * The command (or some of it) was sent, then failed as {@code kind}.
   *
   * @param kind what the failure means; not null
   * @return the report
   */
  public static FailureReport sent(FailureKind kind) {
    return new FailureReport(true, kind, false, false, 0);
  }

  /**
   * Nothing of the command left the client (refused at the connection's in-flight limit, out of
   * time while queued, or queued on a connection that closed); {@code sameNodeMayRetake} when only
   * the connection closed under it. The node is not blamed.
   *
   * @param sameNodeMayRetake true when only the connection failed, not the node
   * @return the report, of kind {@link FailureKind#CONNECTION}
   */
  public static FailureReport notSent(boolean sameNodeMayRetake) {
    return new FailureReport(false, FailureKind.CONNECTION, sameNodeMayRetake, false, 0);
  }

  /**
   * Not sent: it timed out queued behind an earlier command that the node has left unanswered for
   * {@code silentNanos}.
   *
   * @param silentNanos how long the node has left the earlier command unanswered
   * @return the report
   */
  public static FailureReport notSentBehindUnanswered(long silentNanos) {
    return new FailureReport(false, FailureKind.CONNECTION, false, false, silentNanos);
  }

  /**
   * Nothing of the command left the client because no connection to the node could be opened
   * (refused, or the connect timed out): another replica may take it whatever its idempotency, and
   * the node is blamed, as the pooled transport's failed connect blames it.
   *
   * @return the report, of kind {@link FailureKind#CONNECTION}
   */
  public static FailureReport unreachable() {
    return new FailureReport(false, FailureKind.CONNECTION, false, true, 0);
  }

  /**
   * Whether the node is blamed: a sent command's I/O failure or timeout, or a node that could not
   * be reached. Such a node loses health (and, in time, rotation).
   *
   * @return true when the node, not only the command, failed
   */
  public boolean blamesNode() {
    return nodeUnreachable
        || (sent && (kind == FailureKind.CONNECTION || kind == FailureKind.TIMEOUT));
  }
}
