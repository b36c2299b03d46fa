package io.dyno.companion.containers;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out loopback ports that are free right now. Containers run with host networking, so each
 * process binds a fixed port we choose before it starts. Ports come from 20000–31999, below the
 * kernel's ephemeral range, so outgoing connections cannot take them in the meantime; ports
 * already handed out in this JVM are never reused.
 */
public final class FreePorts {
  private static final int LOW = 20_000;
  private static final int HIGH = 32_000;
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private FreePorts() {}

  public static synchronized int next() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int attempt = 0; attempt < 2_000; attempt++) {
      int port = random.nextInt(LOW, HIGH);
      if (HANDED_OUT.contains(port) || !bindable(port)) {
        continue;
      }
      HANDED_OUT.add(port);
      return port;
    }
    throw new IllegalStateException("no free loopback port found in " + LOW + ".." + (HIGH - 1));
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
