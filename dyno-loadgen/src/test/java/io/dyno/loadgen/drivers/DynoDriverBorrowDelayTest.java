package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.companion.Backend;
import io.dyno.core.ConsistencyLevel;
import io.dyno.jedis.Transport;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The load generator's "borrow delay" reads what borrow delay means on each transport. */
class DynoDriverBorrowDelayTest {
  @Test
  void onTheMultiplexedTransportBorrowDelayIsEveryRequestsQueueDelay() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(1, 1, Backend.MEMORY);
        DynoDriver mux = new DynoDriver(
            target::hosts,
            target::tokens,
            target.localRack(),
            ConsistencyLevel.DC_ONE,
            8,
            Duration.ofSeconds(2),
            new DefaultRegistry(),
            null,
            Transport.MULTIPLEXED)) {
      for (int i = 0; i < 20; i++) {
        mux.client().set("bd:" + i, "v");
      }
      String line = mux.summary().get("borrow delay");
      Matcher m = Pattern.compile("\\((\\d+) requests; multiplexed").matcher(line);
      assertThat(m.find()).as(line).isTrue();
      assertThat(Long.parseLong(m.group(1)))
          .as("one queue-delay sample per request")
          .isEqualTo(20);
      assertThat(mux.borrowSinceLastCall().getTotalCount()).isEqualTo(20);
    }
  }
}
