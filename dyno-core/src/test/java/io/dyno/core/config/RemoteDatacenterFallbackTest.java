package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.archaius.config.DefaultSettableConfig;
import org.junit.jupiter.api.Test;

class RemoteDatacenterFallbackTest {
  @Test
  void eachValueLetsGoWhatItsNameSays() {
    // (read, idempotent write, other write)
    assertAllows(RemoteDatacenterFallback.NEVER, false, false, false);
    assertAllows(RemoteDatacenterFallback.READS, true, false, false);
    assertAllows(RemoteDatacenterFallback.READS_AND_IDEMPOTENT_WRITES, true, true, false);
    assertAllows(RemoteDatacenterFallback.ALL, true, true, true);
    assertThat(DynoConfig.builder().build().remoteDatacenterFallback())
        .isEqualTo(RemoteDatacenterFallback.READS);
  }

  private static void assertAllows(
      RemoteDatacenterFallback f, boolean read, boolean idempotentWrite, boolean otherWrite) {
    assertThat(f.allows(true, true)).as(f + " read").isEqualTo(read);
    assertThat(f.allows(false, true)).as(f + " idempotent write").isEqualTo(idempotentWrite);
    assertThat(f.allows(false, false)).as(f + " other write").isEqualTo(otherWrite);
  }

  @Test
  void theArchaiusPropertyIsReadCaseInsensitivelyAndABadValueNamesTheProperty() {
    DefaultSettableConfig props = new DefaultSettableConfig();
    props.setProperty(
        "dyno.shop.connection.remoteDatacenterFallback", "reads_and_idempotent_writes");
    DynoConfig base = DynoConfig.builder().applicationName("shop").build();
    assertThat(new ArchaiusDynoConfig(props, base).get().remoteDatacenterFallback())
        .isEqualTo(RemoteDatacenterFallback.READS_AND_IDEMPOTENT_WRITES);

    props.setProperty("dyno.shop.connection.remoteDatacenterFallback", "sometimes");
    assertThatThrownBy(() -> new ArchaiusDynoConfig(props, base))
        .hasMessageContaining("dyno.shop.connection.remoteDatacenterFallback")
        .hasMessageContaining("sometimes");
  }
}
