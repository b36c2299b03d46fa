package io.dyno.warmup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The sidecar's command line: {@code WarmUpMain <node> <peer> [<peer> ...]}, each
 * {@code host:adminPort:redisPort}; the node is the one beside which it runs, the peers hold the
 * same token in other racks. Optional system properties: {@code dyno.warmup.everyMs} (how often the
 * node is looked at, 200), {@code dyno.warmup.syncTimeoutMs} (600000),
 * {@code dyno.warmup.maxPauseMs} (500).
 */
public final class WarmUpMain {
  private WarmUpMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 2) {
      System.err.println("usage: WarmUpMain <node host:adminPort:redisPort>"
          + " <peer host:adminPort:redisPort> [<peer> ...]");
      System.exit(2);
    }
    WarmUpNode node = WarmUpNode.parse(args[0]);
    List<WarmUpNode> peers = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      peers.add(WarmUpNode.parse(args[i]));
    }
    WarmUpSidecar sidecar = new WarmUpSidecar(
        node,
        peers,
        Duration.ofMillis(Long.getLong("dyno.warmup.everyMs", 200)),
        Duration.ofMillis(Long.getLong("dyno.warmup.syncTimeoutMs", 600_000)),
        Duration.ofMillis(Long.getLong("dyno.warmup.maxPauseMs", 500)));
    sidecar.start();
    Thread.currentThread().join(); // runs until the process is stopped
  }
}
