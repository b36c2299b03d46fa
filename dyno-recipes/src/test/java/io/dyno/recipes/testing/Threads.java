package io.dyno.recipes.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** Runs bodies on their own threads, released together so they really contend. */
public final class Threads {
  private Threads() {}

  /**
   * Starts one thread per body, lets them all go at once, then joins each for up to
   * {@code joinBound}. A thread interrupted before the start returns without running its body.
   */
  public static void runTogether(List<Runnable> bodies, Duration joinBound)
      throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (Runnable body : bodies) {
      Thread th = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        body.run();
      });
      th.start();
      all.add(th);
    }
    go.countDown();
    for (Thread th : all) {
      th.join(joinBound.toMillis());
    }
  }
}
