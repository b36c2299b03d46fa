package io.dyno.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.core.pool.internal.ConcurrentBag;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrentBagTest {
  static final class Item extends ConcurrentBag.Entry {}

  final AtomicInteger addRequests = new AtomicInteger();
  final ConcurrentBag<Item> bag = new ConcurrentBag<>(waiting -> addRequests.incrementAndGet());

  @Test
  void borrowTakesAFreeEntryAndRequiteMakesItFreeAgain() throws Exception {
    Item a = new Item();
    bag.add(a);
    assertThat(bag.borrow(0)).isSameAs(a);
    assertThat(a.state()).isEqualTo(ConcurrentBag.Entry.IN_USE);
    assertThat(bag.borrow(TimeUnit.MILLISECONDS.toNanos(20))).isNull();
    assertThat(addRequests.get()).isPositive(); // an empty bag asks for more
    bag.requite(a);
    assertThat(bag.borrow(0)).isSameAs(a);
  }

  @Test
  void borrowsServedWithoutWaitingAreCountedPerThreadAndKeptAfterTheThreadsEnd() throws Exception {
    for (int i = 0; i < 4; i++) {
      bag.add(new Item());
    }
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int i = 0; i < 1000; i++) {
          Item e = bag.borrowNow();
          if (e != null) {
            bag.requite(e);
          } else {
            i--; // all four were taken at that instant: try again
          }
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join(10_000);
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(bag.immediateBorrows()).isEqualTo(4000);
    assertThat(bag.immediateBorrows()).isEqualTo(4000); // the ended threads' counts stay
    Item e = bag.borrowNow();
    bag.uncountImmediate();
    bag.requite(e);
    assertThat(bag.borrow(0)).isNotNull(); // borrow(timeout) is not counted as immediate
    assertThat(bag.immediateBorrows()).isEqualTo(4000);
  }

  @Test
  void aRemovedEntryIsNeverHandedOutAgainEvenFromAThreadLocalList() throws Exception {
    Item a = new Item();
    bag.add(a);
    Item got = bag.borrow(0);
    bag.requite(got); // now in this thread's local list too
    assertThat(bag.reserve(a)).isTrue();
    assertThat(bag.remove(a)).isTrue();
    assertThat(bag.borrow(TimeUnit.MILLISECONDS.toNanos(20))).isNull();
    assertThat(bag.size()).isZero();
  }

  @Test
  void aReturnedEntryIsHandedToAWaitingThread() throws Exception {
    Item a = new Item();
    bag.add(a);
    Item held = bag.borrow(0);
    CountDownLatch waiting = new CountDownLatch(1);
    Item[] received = new Item[1];
    Thread waiter = new Thread(() -> {
      waiting.countDown();
      try {
        received[0] = bag.borrow(TimeUnit.SECONDS.toNanos(10));
      } catch (InterruptedException ignored) {
        // test fails below
      }
    });
    waiter.start();
    waiting.await();
    await("the borrower waits in the bag")
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(1))
        .until(() -> bag.waiters() > 0);
    bag.requite(held);
    waiter.join(10_000);
    assertThat(received[0]).isSameAs(a);
    assertThat(bag.waiters()).isZero();
  }

  @Test
  void underContentionNoEntryIsEverHeldByTwoThreadsAtOnce() throws Exception {
    for (int i = 0; i < 4; i++) {
      bag.add(new Item());
    }
    Set<Item> held = ConcurrentHashMap.newKeySet();
    AtomicInteger violations = new AtomicInteger();
    AtomicInteger timeouts = new AtomicInteger();
    Thread[] threads = new Thread[16];
    for (int t = 0; t < threads.length; t++) {
      threads[t] = new Thread(() -> {
        for (int n = 0; n < 20_000; n++) {
          try {
            Item e = bag.borrow(TimeUnit.SECONDS.toNanos(5));
            if (e == null) {
              timeouts.incrementAndGet();
              continue;
            }
            if (!held.add(e)) {
              violations.incrementAndGet();
            }
            held.remove(e);
            bag.requite(e);
          } catch (InterruptedException ex) {
            return;
          }
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join(60_000);
    }
    assertThat(violations.get()).isZero();
    assertThat(timeouts.get()).isZero();
    assertThat(bag.count(ConcurrentBag.Entry.FREE)).isEqualTo(4);
  }
}
