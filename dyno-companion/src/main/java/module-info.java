/**
 * The companion: a Dynomite-compatible node (in-memory, or in front of {@code redis-server}), its
 * launcher, a JUnit 5 extension and Testcontainers helpers.
 */
module io.dyno.companion {
  requires io.dyno.core;
  requires org.slf4j;
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.codec.redis;
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;
  requires info.picocli;
  requires io.dyno.testsupport;
  requires java.net.http;
  requires static org.junit.jupiter.api;
  requires static testcontainers;
  requires static com.github.dockerjava.api;

  exports io.dyno.companion;
  exports io.dyno.companion.containers;
  exports io.dyno.companion.dynomite;

  opens io.dyno.companion to
      info.picocli;
}
