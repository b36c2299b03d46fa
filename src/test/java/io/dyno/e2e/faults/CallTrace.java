package io.dyno.e2e.faults;

import io.dyno.core.Host;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import java.util.ArrayList;
import java.util.List;

/**
 * What one call did with the faulted node, heard through the client's {@link CallListener}: whether
 * an attempt went there, whether its command was sent there (so a failed write may have been
 * applied by the silent node), and which node's answer the call got. The {@link #factory} keeps the
 * caller thread's latest trace, so a synchronous caller reads the trace of the call it just made.
 */
final class CallTrace implements CallListener {
  private final String faultedId;
  private boolean attemptedFaulted;
  private boolean sentToFaulted;
  private int openOnFaulted;
  private boolean firstOnFaulted;
  private Host servedBy;
  private List<String> attemptedOthers = List.of();

  private CallTrace(String faultedId) {
    this.faultedId = faultedId;
  }

  /** Makes one trace per call and remembers it as the calling thread's latest. */
  static final class Recorder implements CallListener.Factory {
    private final String faultedId;
    private final ThreadLocal<CallTrace> latest = new ThreadLocal<>();

    Recorder(Host faulted) {
      this.faultedId = faulted.id();
    }

    @Override
    public CallListener create() {
      CallTrace t = new CallTrace(faultedId);
      latest.set(t);
      return t;
    }

    /** Forgets the calling thread's trace: call before each call. */
    void reset() {
      latest.remove();
    }

    /** The trace of the calling thread's last call, or null if it made none since {@link #reset}. */
    CallTrace last() {
      return latest.get();
    }
  }

  @Override
  public synchronized void attemptStart(int attempt, Host node, AttemptReason reason) {
    if (node.id().equals(faultedId)) {
      attemptedFaulted = true;
      if (attempt == 1) firstOnFaulted = true;
      openOnFaulted++; // until its end says NOT_SENT, the command may have reached the node
    } else if (!attemptedOthers.contains(node.id())) {
      List<String> more = new ArrayList<>(attemptedOthers);
      more.add(node.id());
      attemptedOthers = more;
    }
  }

  @Override
  public synchronized void attemptEnd(
      int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
    if (outcome == AttemptOutcome.SUCCESS) servedBy = node;
    if (node.id().equals(faultedId)) {
      openOnFaulted--;
      if (outcome != AttemptOutcome.NOT_SENT) sentToFaulted = true;
    }
  }

  synchronized boolean attemptedFaulted() {
    return attemptedFaulted;
  }

  /** Whether the call's command may have reached the faulted node (an attempt there was not NOT_SENT). */
  synchronized boolean sentToFaulted() {
    return sentToFaulted || openOnFaulted > 0;
  }

  /** Whether the call's first attempt went to the faulted node (it was preferred, not steered away). */
  synchronized boolean firstOnFaulted() {
    return firstOnFaulted;
  }

  /** The nodes other than the faulted one that an attempt went to (ids as the client sees them). */
  synchronized List<String> attemptedOthers() {
    return attemptedOthers;
  }

  /** Whether the faulted node's answer is the call's result. */
  synchronized boolean servedByFaulted() {
    return servedBy != null && servedBy.id().equals(faultedId);
  }

  /** The rack whose node answered, or null when the call failed. */
  synchronized String servedByRack() {
    return servedBy == null ? null : servedBy.rack();
  }
}
