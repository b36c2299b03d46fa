package io.dyno.micrometer;

import com.netflix.spectator.api.Clock;
import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Gauge;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Measurement;
import com.netflix.spectator.api.Statistic;
import com.netflix.spectator.api.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.function.DoubleConsumer;
import java.util.function.DoubleSupplier;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The Spectator side of {@link MicrometerRegistry}'s meters: each records into (and reads back from)
 * the Micrometer meter {@link MicrometerMeters} registered for it, through method references, so
 * this file names only Spectator's types. Reading one back ({@code count()}, {@code value()}) gives
 * what the Micrometer meter holds, so code that reads Dyno's meters from the registry still works.
 */
final class SpectatorMeters {
  private SpectatorMeters() {}

  private static final double NANOS_PER_SECOND = 1e9;

  /** A counter recording into a Micrometer counter. */
  static final class BridgedCounter implements Counter {
    private final Id id;
    private final Clock clock;
    private final DoubleConsumer add;
    private final DoubleSupplier count;

    BridgedCounter(Id id, Clock clock, DoubleConsumer add, DoubleSupplier count) {
      this.id = id;
      this.clock = clock;
      this.add = add;
      this.count = count;
    }

    @Override
    public Id id() {
      return id;
    }

    @Override
    public boolean hasExpired() {
      return false;
    }

    @Override
    public void add(double amount) {
      add.accept(amount);
    }

    @Override
    public double actualCount() {
      return count.getAsDouble();
    }

    @Override
    public Iterable<Measurement> measure() {
      return List.of(new Measurement(id.withTag(Statistic.count), clock.wallTime(), actualCount()));
    }
  }

  /**
   * A counter kept here only: a bucket of a Spectator percentile meter, whose histogram Micrometer
   * keeps itself. Still counts, so Spectator-side readers see what they would.
   */
  static final class LocalCounter implements Counter {
    private final Id id;
    private final Clock clock;
    private final DoubleAdder count = new DoubleAdder();

    LocalCounter(Id id, Clock clock) {
      this.id = id;
      this.clock = clock;
    }

    @Override
    public Id id() {
      return id;
    }

    @Override
    public boolean hasExpired() {
      return false;
    }

    @Override
    public void add(double amount) {
      count.add(amount);
    }

    @Override
    public double actualCount() {
      return count.sum();
    }

    @Override
    public Iterable<Measurement> measure() {
      return List.of(new Measurement(id, clock.wallTime(), actualCount()));
    }
  }

  /** A timer recording into a Micrometer timer (nanoseconds in, nanoseconds out). */
  static final class BridgedTimer implements Timer {
    private final Id id;
    private final Clock clock;
    private final LongConsumer recordNanos;
    private final LongSupplier count;
    private final DoubleSupplier totalNanos;

    BridgedTimer(
        Id id,
        Clock clock,
        LongConsumer recordNanos,
        LongSupplier count,
        DoubleSupplier totalNanos) {
      this.id = id;
      this.clock = clock;
      this.recordNanos = recordNanos;
      this.count = count;
      this.totalNanos = totalNanos;
    }

    @Override
    public Id id() {
      return id;
    }

    @Override
    public Clock clock() {
      return clock;
    }

    @Override
    public boolean hasExpired() {
      return false;
    }

    @Override
    public long count() {
      return count.getAsLong();
    }

    @Override
    public long totalTime() {
      return (long) totalNanos.getAsDouble();
    }

    @Override
    public void record(long amount, TimeUnit unit) {
      if (amount >= 0) { // Spectator drops negative durations; so does this bridge
        recordNanos.accept(unit.toNanos(amount));
      }
    }

    @Override
    public Iterable<Measurement> measure() {
      long now = clock.wallTime();
      return List.of(
          new Measurement(id.withTag(Statistic.count), now, count()),
          new Measurement(
              id.withTag(Statistic.totalTime), now, totalNanos.getAsDouble() / NANOS_PER_SECOND));
    }
  }

  /** A distribution summary recording into a Micrometer one. */
  static final class BridgedSummary implements DistributionSummary {
    private final Id id;
    private final Clock clock;
    private final DoubleConsumer record;
    private final LongSupplier count;
    private final DoubleSupplier total;

    BridgedSummary(
        Id id, Clock clock, DoubleConsumer record, LongSupplier count, DoubleSupplier total) {
      this.id = id;
      this.clock = clock;
      this.record = record;
      this.count = count;
      this.total = total;
    }

    @Override
    public Id id() {
      return id;
    }

    @Override
    public boolean hasExpired() {
      return false;
    }

    @Override
    public long count() {
      return count.getAsLong();
    }

    @Override
    public long totalAmount() {
      return (long) total.getAsDouble();
    }

    @Override
    public void record(long amount) {
      if (amount >= 0) {
        record.accept(amount);
      }
    }

    @Override
    public Iterable<Measurement> measure() {
      long now = clock.wallTime();
      return List.of(
          new Measurement(id.withTag(Statistic.count), now, count()),
          new Measurement(id.withTag(Statistic.totalAmount), now, total.getAsDouble()));
    }
  }

  /**
   * A gauge Spectator sets (a polled meter's value) and Micrometer reads ({@link #read}). NaN until
   * first set; then the last value, as Spectator's own gauge. A max gauge keeps the largest value
   * set since Micrometer last read it.
   */
  static final class BridgedGauge implements Gauge {
    private final Id id;
    private final Clock clock;
    private final boolean max;
    private double value = Double.NaN; // guarded by this

    BridgedGauge(Id id, Clock clock, boolean max) {
      this.id = id;
      this.clock = clock;
      this.max = max;
    }

    @Override
    public Id id() {
      return id;
    }

    @Override
    public boolean hasExpired() {
      return false;
    }

    @Override
    public synchronized void set(double v) {
      value = max && !Double.isNaN(value) ? Math.max(value, v) : v;
    }

    @Override
    public synchronized double value() {
      return value;
    }

    /** What Micrometer reports: the value (for a max gauge, the max since the last read, then reset). */
    synchronized double read() {
      double v = value;
      if (max) {
        value = Double.NaN;
      }
      return v;
    }

    @Override
    public Iterable<Measurement> measure() {
      return List.of(new Measurement(
          id.withTag(max ? Statistic.max : Statistic.gauge), clock.wallTime(), value()));
    }
  }
}
