package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The client process's CPU per operation: this JVM's, less the threads of servers embedded in it. */
class ClientCpuTest {

  @Test
  void theEmbeddedServersThreadsAreTakenOutAndOneStartedInBetweenCountsFromZero() {
    ClientCpu.Reading before =
        new ClientCpu.Reading(1_000_000_000L, Map.of(1L, 200_000_000L), null);
    ClientCpu.Reading after =
        new ClientCpu.Reading(3_000_000_000L, Map.of(1L, 500_000_000L, 2L, 100_000_000L), null);

    ClientCpu.Use u = ClientCpu.between(before, after, 1000);

    assertThat(u.seconds()).isCloseTo(1.6, offset(1e-9));
    assertThat(u.serverThreadSeconds()).isCloseTo(0.4, offset(1e-9));
    assertThat(u.microsPerOp()).isCloseTo(1600, offset(1e-6));
    assertThat(u.toString())
        .isEqualTo("1600.0 us/op (1.60 s CPU of this JVM over 1000 ops;"
            + " the embedded servers' 0.40 s taken out)");
  }

  @Test
  void withoutOperationsOrAReadingItIsNaWithTheReason() {
    ClientCpu.Reading ok = new ClientCpu.Reading(1, Map.of(), null);
    assertThat(ClientCpu.between(ok, ok, 0).toString()).isEqualTo("n/a (no operations completed)");
    assertThat(
            ClientCpu.between(new ClientCpu.Reading(0, Map.of(), "why"), ok, 5).asJson())
        .isEqualTo("n/a (at the start: why)");
  }

  @Test
  void aServerThreadsCpuIsReadAndTakenOutOfTheProcesss() throws Exception {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    ClientCpu cpu = new ClientCpu("companion-test-");
    ClientCpu.Reading before = cpu.read();
    CountDownLatch burnt = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // A server thread that burns 200 ms of CPU, then stays alive for the second reading.
    Thread server = new Thread(
        () -> {
          long id = Thread.currentThread().getId();
          while (mx.getThreadCpuTime(id) < 200_000_000L) {
            Thread.onSpinWait(); // busy: the loop and the CPU-time reads are the work
          }
          burnt.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "companion-test-1");
    server.setDaemon(true);
    server.start();
    burnt.await();
    ClientCpu.Reading after = cpu.read();
    release.countDown();
    server.join();

    ClientCpu.Use u = ClientCpu.between(before, after, 100);
    assertThat(before.unavailable()).isNull();
    assertThat(u.serverThreadSeconds()).isGreaterThanOrEqualTo(0.2);
    assertThat(after.processNanos() - before.processNanos()).isGreaterThanOrEqualTo(200_000_000L);
    assertThat(u.seconds())
        .isCloseTo(
            (after.processNanos() - before.processNanos()) / 1e9 - u.serverThreadSeconds(),
            offset(1e-9));
  }
}
