package io.dyno.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisServerExtensionTest {
  @RegisterExtension
  static final RedisServerExtension REDIS =
      RedisServerExtension.withArgs("--requirepass", "s3cret");

  private static RedisServer perClass;
  private static RedisServer fromFirstTest;

  @BeforeAll
  static void startOneForTheClass(RedisServer redis) {
    perClass = redis;
  }

  @Test
  @Order(1)
  void aTestParameterIsARunningServerWithTheExtensionsOptions(RedisServer redis) {
    fromFirstTest = redis;
    assertThat(RespProbe.processId(redis.port(), "s3cret", false)).isEqualTo(redis.pid());
    assertThat(redis).isNotSameAs(perClass);
  }

  @Test
  @Order(2)
  void aTestsServerIsClosedAfterItsTestAndTheClassServerLivesOn() {
    assertThat(fromFirstTest.isAlive()).isFalse();
    assertThat(perClass.isAlive()).isTrue();
  }

  @AfterAll
  static void theClassServerIsStillUpUntilTheClassEnds() {
    assertThat(perClass.isAlive()).isTrue();
  }
}
