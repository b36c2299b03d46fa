package io.dyno.core.pool.internal;

import io.dyno.core.time.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The lock-free container behind each node's pool.
 *
 * <h2>Algorithm</h2>
 * Every entry carries its own state word ({@link Entry#FREE}, {@link Entry#IN_USE},
 * {@link Entry#RESERVED}, {@link Entry#REMOVED}); whoever wins a compare-and-set from FREE to
 * IN_USE owns the entry. There is no lock and no queue of idle entries: when the pool is not
 * starved, a borrow is one CAS on the entry and a return one volatile write plus a read of the
 * waiter count. Three places are searched, cheapest first ({@link #borrowNow} covers the first two
 * and never waits; {@link #borrowWaiting} is the third):
 * <ol>
 *   <li><b>Thread-local list.</b> {@link #requite} remembers the entry in a small per-thread list
 *       (at most {@value #LOCAL_MAX}). The same thread borrowing again usually finds it there: no
 *       shared cache line is written except the entry's own state. The same per-thread object
 *       counts the borrows served without waiting (for the borrow-delay metric), so counting them
 *       costs a plain store to memory only this thread writes. Entries in a thread's list are
 *       <em>not</em> owned by it — other threads can still take them from the shared list — so a stale
 *       reference simply fails its CAS and is dropped.</li>
 *   <li><b>Shared list.</b> A {@link CopyOnWriteArrayList} of every entry, scanned in order with a CAS
 *       on each FREE one. Writes (add/remove) are rare: only when connections open or close. A
 *       borrower that arrives while others wait skips this first scan and queues behind them.</li>
 *   <li><b>Hand-off queue.</b> A fair {@link SynchronousQueue}. A borrower that found nothing
 *       registers as a waiter, scans the shared list once more, asks the {@link Listener} for a new
 *       entry, and polls the queue until its timeout, rescanning the shared list every 10 ms in case
 *       an entry was added without a hand-off. {@link #requite} and {@link #add} see the waiter count
 *       and offer the entry directly to the longest waiter (fairness: no barging by threads that
 *       arrive later while someone waits, because the returned entry is handed off before it is put
 *       in a thread-local list).</li>
 * </ol>
 *
 * <p>A borrow's timeout is measured on the {@link Ticker} the bag was made with; the waiting itself
 * is real, in polls of at most 10 ms, so on a clock that moves only when told to a borrow gives up
 * within 10 ms of the clock passing its deadline.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>An entry returned by {@link #borrow}, {@link #borrowNow} or {@link #borrowWaiting} is IN_USE
 *       and belongs to the caller until it calls {@link #requite} (back to FREE) or {@link #remove}
 *       (gone for good).</li>
 *   <li>{@link #reserve} takes a FREE entry out of circulation for maintenance (keep-alive, eviction);
 *       {@link #unreserve} puts it back, {@link #remove} discards it.</li>
 *   <li>A REMOVED entry is never handed out again: every path that hands out an entry does so only
 *       after winning a CAS from FREE.</li>
 *   <li>{@link #borrow} and {@link #borrowWaiting} block for at most their timeout and return null on
 *       timeout; {@link #borrowNow} never blocks.</li>
 * </ul>
 */
public final class ConcurrentBag<T extends ConcurrentBag.Entry> {
  static final int LOCAL_MAX = 16;
  private static final long RESCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** Asked for a new entry when a borrower finds none. Must not block (open connections elsewhere). */
  public interface Listener {
    void addItem(int waiting);
  }

  /** Base class of bag entries: a state word changed by CAS. */
  public abstract static class Entry {
    public static final int FREE = 0;
    public static final int IN_USE = 1;
    public static final int REMOVED = -1;
    public static final int RESERVED = -2;
    private static final VarHandle STATE;

    static {
      try {
        STATE = MethodHandles.lookup().findVarHandle(Entry.class, "state", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;

    public final int state() {
      return state;
    }

    final boolean cas(int expect, int update) {
      return STATE.compareAndSet(this, expect, update);
    }

    final void setState(int s) {
      state = s;
    }
  }

  /** One thread's state: the entries it returned last, and how many borrows {@link #borrowNow} served it. */
  private static final class Local {
    private static final VarHandle IMMEDIATE;

    static {
      try {
        IMMEDIATE = MethodHandles.lookup().findVarHandle(Local.class, "immediate", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final ArrayList<Object> list = new ArrayList<>(LOCAL_MAX);
    final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());

    @SuppressWarnings(
        "unused") // accessed through IMMEDIATE: written by the owner only, read by anyone
    private long immediate;

    void add(long n) {
      IMMEDIATE.setOpaque(this, (long) IMMEDIATE.getOpaque(this) + n);
    }

    long immediate() {
      return (long) IMMEDIATE.getOpaque(this);
    }

    boolean ownerGone() {
      Thread t = owner.get();
      return t == null || !t.isAlive();
    }
  }

  private final CopyOnWriteArrayList<T> shared = new CopyOnWriteArrayList<>();
  private final ThreadLocal<Local> local = ThreadLocal.withInitial(this::newLocal);
  private final ConcurrentLinkedQueue<Local> locals = new ConcurrentLinkedQueue<>();
  private long retiredImmediate; // counts of threads that died; guarded by locals
  private final SynchronousQueue<T> handoff = new SynchronousQueue<>(true);
  private final AtomicInteger waiters = new AtomicInteger();
  private final Listener listener;
  private final Ticker ticker;

  /** A bag whose borrow timeouts are measured on {@link Ticker#system()}. */
  public ConcurrentBag(Listener listener) {
    this(listener, Ticker.system());
  }

  public ConcurrentBag(Listener listener, Ticker ticker) {
    this.listener = listener;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  private Local newLocal() {
    Local l = new Local();
    locals.add(l);
    return l;
  }

  /**
   * Takes a FREE entry without waiting: this thread's list, then — only when nobody is waiting, so
   * that a newcomer does not overtake the waiters — one pass over the shared list. Null if none.
   * A hit is counted in this thread's own counter ({@link #immediateBorrows()}); it writes no shared
   * cache line except the entry's state word.
   */
  public T borrowNow() {
    Local l = local.get();
    T e = takeNow(l);
    if (e != null) {
      l.add(1);
    }
    return e;
  }

  /** Takes back the count of this thread's last {@link #borrowNow} (its entry turned out unusable). */
  public void uncountImmediate() {
    local.get().add(-1);
  }

  /**
   * Borrows served by {@link #borrowNow} so far, over all threads. Read without stopping them, so a
   * concurrent borrow may or may not be included; the total only grows, except that a borrow undone
   * by {@link #uncountImmediate} may be seen and then unseen.
   */
  public long immediateBorrows() {
    synchronized (locals) {
      long sum = retiredImmediate;
      for (Iterator<Local> it = locals.iterator(); it.hasNext(); ) {
        Local l = it.next();
        long n = l.immediate();
        if (l.ownerGone()) { // its thread ended: keep its count, drop its state
          retiredImmediate += n;
          it.remove();
        }
        sum += n;
      }
      return sum;
    }
  }

  @SuppressWarnings("unchecked")
  private T takeNow(Local l) {
    ArrayList<Object> list = l.list;
    for (int i = list.size() - 1; i >= 0; i--) {
      T e = (T) list.remove(i);
      if (e.cas(Entry.FREE, Entry.IN_USE)) {
        return e;
      }
    }
    return waiters.get() == 0 ? scanShared() : null;
  }

  /** Takes a FREE entry, waiting up to {@code timeoutNanos}; null on timeout. Not counted as immediate. */
  public T borrow(long timeoutNanos) throws InterruptedException {
    return borrow(timeoutNanos, null);
  }

  /** As {@link #borrow(long)}, giving up early once {@code abandon} is true (null: never). */
  public T borrow(long timeoutNanos, BooleanSupplier abandon) throws InterruptedException {
    T now = takeNow(local.get());
    return now != null ? now : borrowWaiting(timeoutNanos, abandon);
  }

  /**
   * The slow path of {@link #borrow}: registers as a waiter, scans the shared list once more, asks
   * the listener for a new entry, then waits for a hand-off. Null on timeout, or within 10 ms of
   * {@code abandon} turning true (null: never).
   */
  private T borrowWaiting(long timeoutNanos, BooleanSupplier abandon) throws InterruptedException {
    int waiting = waiters.incrementAndGet();
    try {
      for (T e : shared) {
        if (e.cas(Entry.FREE, Entry.IN_USE)) {
          if (waiting > 1) {
            listener.addItem(waiting - 1); // we may have taken one meant for another waiter
          }
          return e;
        }
      }
      listener.addItem(waiting);
      long deadline = ticker.nanoTime() + timeoutNanos;
      long left = timeoutNanos;
      while (left > 0) {
        T e = scanShared(); // the listener may have added one synchronously, or an add() missed us
        if (e != null) {
          return e;
        }
        e = handoff.poll(Math.min(left, RESCAN_NANOS), TimeUnit.NANOSECONDS);
        if (e != null && e.cas(Entry.FREE, Entry.IN_USE)) {
          return e;
        }
        left = abandon != null && abandon.getAsBoolean() ? 0 : deadline - ticker.nanoTime();
      }
      return null;
    } finally {
      waiters.decrementAndGet();
    }
  }

  private T scanShared() {
    for (T e : shared) {
      if (e.cas(Entry.FREE, Entry.IN_USE)) {
        return e;
      }
    }
    return null;
  }

  /** Returns a borrowed entry: hands it to a waiter if there is one, else remembers it in this thread's list. */
  public void requite(T e) {
    e.setState(Entry.FREE);
    for (int i = 0; waiters.get() > 0; i++) {
      if (e.state() != Entry.FREE || handoff.offer(e)) {
        return;
      }
      if ((i & 0xff) == 0xff) {
        LockSupport.parkNanos(10_000);
      } else {
        Thread.yield();
      }
    }
    ArrayList<Object> list = local.get().list;
    if (list.size() < LOCAL_MAX) {
      list.add(e);
    }
  }

  /** Adds a new FREE entry, handing it straight to a waiter when there is one. */
  public void add(T e) {
    shared.add(e);
    offerToWaiter(e);
  }

  // Bounded spin: a waiter rescans the shared list between polls, so giving up here only delays it.
  // (Unbounded, it would hang when the adding thread is itself the waiter, e.g. a direct executor.)
  private void offerToWaiter(T e) {
    for (int i = 0; i < 256 && waiters.get() > 0 && e.state() == Entry.FREE; i++) {
      if (handoff.offer(e)) {
        return;
      }
      Thread.yield();
    }
  }

  /** Adds a new entry already IN_USE by the caller (a connection the caller opened itself). */
  public void addInUse(T e) {
    e.setState(Entry.IN_USE);
    shared.add(e);
  }

  /** Removes an entry the caller holds (IN_USE or RESERVED). False if it was not held. */
  public boolean remove(T e) {
    if (!e.cas(Entry.IN_USE, Entry.REMOVED) && !e.cas(Entry.RESERVED, Entry.REMOVED)) {
      return false;
    }
    shared.remove(e);
    return true;
  }

  /** Takes a FREE entry out of circulation for maintenance. */
  public boolean reserve(T e) {
    return e.cas(Entry.FREE, Entry.RESERVED);
  }

  /** Puts a reserved entry back. */
  public void unreserve(T e) {
    if (e.cas(Entry.RESERVED, Entry.FREE)) {
      offerToWaiter(e);
    }
  }

  /** A snapshot of every entry (any state). */
  public List<T> values() {
    return new ArrayList<>(shared);
  }

  public int size() {
    return shared.size();
  }

  public int count(int state) {
    int n = 0;
    for (T e : shared) {
      if (e.state() == state) {
        n++;
      }
    }
    return n;
  }

  /** Callers blocked in {@link #borrow} right now. */
  public int waiters() {
    return waiters.get();
  }
}
