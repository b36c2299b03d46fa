package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Without a listener the events cost nothing: every call shares {@link CallEvents#OFF}, which allocates nothing. */
class CallEventsTest {
  static final Host A =
      Host.builder("127.0.0.1", 7001).rack("rack1").datacenter("dc1").build();
  static final List<Host> CANDIDATES = List.of(A);

  @Test
  void withoutAListenerEveryCallSharesTheSameSilentEvents() {
    assertThat(CallEvents.combine(List.of())).isNull();
    assertThat(CallEvents.start(null, "GET", "k", CANDIDATES)).isSameAs(CallEvents.OFF);
    assertThat(CallEvents.start(() -> CallListener.NONE, "GET", "k", CANDIDATES))
        .isSameAs(CallEvents.OFF);
    assertThat(CallEvents.start(
            CallEvents.combine(List.of(() -> CallListener.NONE, () -> null)),
            "GET",
            "k",
            CANDIDATES))
        .isSameAs(CallEvents.OFF);
  }

  @Test
  void theConsistencyACallAsksForIsToldRightAfterItsStartAndOnlyWhenItAsksForOne() {
    List<String> heard = new ArrayList<>();
    CallListener recorder = new CallListener() {
      @Override
      public void callStart(String command, Object key, List<Host> candidates) {
        heard.add("start " + command);
      }

      @Override
      public void consistency(ConsistencyLevel level) {
        heard.add("consistency " + level);
      }
    };
    CallListener.Factory both = CallEvents.combine(List.of(() -> recorder, () -> recorder));
    CallEvents.start(both, "GET", "k", CANDIDATES, ConsistencyLevel.DC_QUORUM);
    CallEvents.start(() -> recorder, "SET", "k", CANDIDATES, null);
    assertThat(heard)
        .containsExactly(
            "start GET",
            "start GET",
            "consistency DC_QUORUM",
            "consistency DC_QUORUM",
            "start SET");
  }

  @Test
  void theEventsOfACallWithoutAListenerAllocateNothing() {
    ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    RuntimeException failure = new RuntimeException("x");
    long sink = 0;
    for (int i = 0; i < 20_000; i++) { // warm up
      sink += oneCall(failure);
    }
    long before = mx.getThreadAllocatedBytes(tid);
    for (int i = 0; i < 100_000; i++) {
      sink += oneCall(failure);
    }
    long allocated = mx.getThreadAllocatedBytes(tid) - before;
    assertThat(sink).isZero();
    assertThat(allocated).as("bytes allocated by the events of 100k calls").isLessThan(10_000);
  }

  private static int oneCall(Throwable failure) {
    CallEvents e = CallEvents.start(null, "GET", "k", CANDIDATES);
    int n = e.attemptStart(A, AttemptReason.PREFERRED);
    e.attemptFailed(n, A, FailureKind.CONNECTION, true, failure);
    n += e.attemptStart(A, AttemptReason.HEDGE);
    e.attemptEnd(n, A, AttemptOutcome.SUCCESS, null);
    e.callEnd(null, 1_000);
    return n;
  }
}
