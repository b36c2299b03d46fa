package io.dyno.companion.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Netty event loops with daemon threads. */
public final class Threads {
  private Threads() {}

  public static EventLoopGroup newEventLoopGroup(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
  }
}
