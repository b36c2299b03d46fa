package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's {@link CallListener} events, kept out of {@link Call} and {@link AsyncCall}: they only
 * say where an attempt starts and ends. The reason of an attempt is the one its {@link CallDecider}
 * gave with the answer ({@link CallDecider#reason()}), forwarded as it is: nothing is inferred here.
 *
 * <p>Without a listener every call shares {@link #OFF}, whose methods return at once: no
 * allocation, no lock, no clock read. A listener's exception never reaches the call.
 */
final class CallEvents {
  private static final Logger log = LoggerFactory.getLogger(CallEvents.class);

  /** The events of every call while no listener is installed, or of a call its factory declined. */
  static final CallEvents OFF = new CallEvents(null);

  private final CallListener listener; // null: OFF
  // guarded by this: an asynchronous call's attempts start on other threads, a hedge beside another
  private int attempts;

  private CallEvents(CallListener listener) {
    this.listener = listener;
  }

  /** All the factories as one (null when there is none): each call asks every factory for its listener. */
  static CallListener.Factory combine(List<CallListener.Factory> factories) {
    if (factories.isEmpty()) {
      return null;
    }
    if (factories.size() == 1) {
      return factories.get(0);
    }
    List<CallListener.Factory> all = List.copyOf(factories);
    return () -> {
      List<CallListener> each = new ArrayList<>(all.size());
      for (CallListener.Factory f : all) {
        CallListener l = create(f);
        if (l != null && l != CallListener.NONE) {
          each.add(l);
        }
      }
      return each.isEmpty() ? CallListener.NONE : each.size() == 1 ? each.get(0) : new Fanout(each);
    };
  }

  /** A call starts: its events, {@link #OFF} when no listener wants them. */
  static CallEvents start(
      CallListener.Factory factory, String command, Object key, List<Host> candidates) {
    return start(factory, command, key, candidates, null);
  }

  /** As {@link #start(CallListener.Factory, String, Object, List)}; {@code level}: the call's consistency, null for none. */
  static CallEvents start(
      CallListener.Factory factory,
      String command,
      Object key,
      List<Host> candidates,
      ConsistencyLevel level) {
    if (factory == null) {
      return OFF;
    }
    CallListener l = create(factory);
    if (l == null || l == CallListener.NONE) {
      return OFF;
    }
    try {
      l.callStart(command, key, candidates);
    } catch (RuntimeException e) {
      listenerFailed(l, e);
    }
    if (level != null) {
      try {
        l.consistency(level);
      } catch (RuntimeException e) {
        listenerFailed(l, e);
      }
    }
    return new CallEvents(l);
  }

  /** An attempt on {@code node} starts, for the decider's {@code reason}; its number for {@link #attemptEnd} (0 when off). */
  int attemptStart(Host node, AttemptReason reason) {
    if (listener == null) {
      return 0;
    }
    int n;
    synchronized (this) {
      n = ++attempts;
    }
    try {
      listener.attemptStart(n, node, reason);
    } catch (RuntimeException e) {
      listenerFailed(listener, e);
    }
    return n;
  }

  void attemptEnd(int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
    if (listener == null) {
      return;
    }
    try {
      listener.attemptEnd(attempt, node, outcome, failure);
    } catch (RuntimeException e) {
      listenerFailed(listener, e);
    }
  }

  /** An attempt failed with {@code kind}; one that failed before its command was sent is {@code NOT_SENT}. */
  void attemptFailed(int attempt, Host node, FailureKind kind, boolean sent, Throwable failure) {
    if (listener == null) {
      return;
    }
    AttemptOutcome outcome = !sent
        ? AttemptOutcome.NOT_SENT
        : switch (kind) {
          case CONNECTION -> AttemptOutcome.CONNECTION_ERROR;
          case TIMEOUT -> AttemptOutcome.TIMEOUT;
          case REPLICA -> AttemptOutcome.REPLICA_ERROR;
          case DATA -> AttemptOutcome.DATA_ERROR;
        };
    attemptEnd(attempt, node, outcome, failure);
  }

  /** The call ended with {@code failure} (null: success) after {@code elapsedNanos}. */
  void callEnd(Throwable failure, long elapsedNanos) {
    if (listener == null) {
      return;
    }
    int n;
    synchronized (this) {
      n = attempts;
    }
    try {
      listener.callEnd(failure, n, elapsedNanos);
    } catch (RuntimeException e) {
      listenerFailed(listener, e);
    }
  }

  private static CallListener create(CallListener.Factory f) {
    try {
      return f.create();
    } catch (RuntimeException e) {
      listenerFailed(f, e);
      return null;
    }
  }

  private static void listenerFailed(Object listener, RuntimeException e) {
    log.warn("call listener {} failed (ignored): {}", listener, e.toString());
  }

  /** Several listeners of one call, each told every event. */
  private static final class Fanout implements CallListener {
    private final List<CallListener> each;

    Fanout(List<CallListener> each) {
      this.each = each;
    }

    @Override
    public void callStart(String command, Object key, List<Host> candidates) {
      for (CallListener l : each) {
        try {
          l.callStart(command, key, candidates);
        } catch (RuntimeException e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void consistency(ConsistencyLevel level) {
      for (CallListener l : each) {
        try {
          l.consistency(level);
        } catch (RuntimeException e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void attemptStart(int attempt, Host node, AttemptReason reason) {
      for (CallListener l : each) {
        try {
          l.attemptStart(attempt, node, reason);
        } catch (RuntimeException e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void attemptEnd(int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
      for (CallListener l : each) {
        try {
          l.attemptEnd(attempt, node, outcome, failure);
        } catch (RuntimeException e) {
          listenerFailed(l, e);
        }
      }
    }

    @Override
    public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
      for (CallListener l : each) {
        try {
          l.callEnd(failure, attempts, elapsedNanos);
        } catch (RuntimeException e) {
          listenerFailed(l, e);
        }
      }
    }
  }
}
