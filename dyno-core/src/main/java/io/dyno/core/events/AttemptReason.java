package io.dyno.core.events;

/**
 * Why an attempt went to its node: the answer to "why did this call go to rack2?". Given by the
 * engine's decider with each attempt it decides, never inferred afterwards.
 */
public enum AttemptReason {
  /**
   * The call's first attempt, on its first candidate: the key's owner in the local rack (for a
   * keyless call, the local rack's next node).
   */
  PREFERRED,
  /**
   * The call's first attempt, on the key's owner in the rack its last write went to: that write was
   * served there while the owner in the local rack was away, so the local rack may hold an older
   * value until a whole-value write brings the key home.
   */
  REMEMBERED_RACK,
  /**
   * The call's first attempt, on a later candidate: a candidate before it is in rotation but steered
   * away from for its latency (slower than its replicas lately, or lagging); the rest before it are
   * marked down.
   */
  STEERED,
  /**
   * The call's first attempt, on a later candidate: every candidate before it is marked down by
   * node health (it failed often enough lately) or is in a Dynomite state other than NORMAL
   * (STANDBY while it is warmed up, WRITES_ONLY ...), so the first healthy one was taken.
   */
  PREFERRED_DOWN,
  /** After a failed attempt, on another node: the same token's owner in another rack, or another candidate. */
  FAILOVER,
  /** After an attempt that was sent and failed, on the same node again (the retry policy allowed a re-run there). */
  RETRY,
  /**
   * After an attempt on this node that failed before the command was sent (its connection closed
   * before writing it, or the consistency switch failed): the same node again, on another connection.
   */
  SAME_NODE_RESEND,
  /** A hedged read: the attempt in flight had no answer after the hedge delay; the read went to another replica too. */
  HEDGE
}
