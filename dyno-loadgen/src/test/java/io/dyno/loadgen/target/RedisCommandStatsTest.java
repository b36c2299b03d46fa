package io.dyno.loadgen.target;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reads GET/SET calls out of a Redis 7 {@code INFO commandstats} reply. */
class RedisCommandStatsTest {

  @Test
  void readsTheCallsOfOneCommandAndZeroForACommandThatNeverRan() {
    String info =
        "# Commandstats\r\ncmdstat_get:calls=1415,usec=900,usec_per_call=0.64,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_getset:calls=3,usec=1,usec_per_call=0.3,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_set:calls=22,usec=40,usec_per_call=1.8,rejected_calls=0,failed_calls=0\r\n";
    assertThat(RedisCommandStats.calls(info, "get")).isEqualTo(1415);
    assertThat(RedisCommandStats.calls(info, "set")).isEqualTo(22);
    assertThat(RedisCommandStats.calls(info, "del")).isZero();
  }
}
