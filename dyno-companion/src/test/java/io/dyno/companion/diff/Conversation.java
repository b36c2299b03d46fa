package io.dyno.companion.diff;

import java.util.List;
import java.util.function.Consumer;

/**
 * A scripted conversation with a cluster of one {@link Shape}. Recorded once against real Dynomite
 * into a transcript of the same name, then replayed against the companion on every build.
 * {@code before} runs on a target ahead of the steps (flushing what earlier conversations left),
 * and is not recorded.
 */
record Conversation(
    String name, String about, Shape shape, Consumer<Target> before, List<Step> steps) {
  /**
   * The clusters conversations run on: each datacenter 3 racks x 2 nodes (tokens {0, 2^31-1}),
   * hash tag {@code {}}, Redis backends, peer timeout 1000 ms, 127.0.0.1.
   */
  enum Shape {
    ONE_DATACENTER(List.of("dc1")),
    TWO_DATACENTERS(List.of("dc1", "dc2"));

    final List<String> datacenters;

    Shape(List<String> datacenters) {
      this.datacenters = datacenters;
    }

    /** The transcript header's description of the cluster. */
    String describe() {
      String one = "3 racks x 2 nodes, tokens 0 and 2147483647 per rack, hash tag {}, "
          + "Redis backends, peer timeout 1000 ms, 127.0.0.1";
      return datacenters.size() == 1
          ? one
          : "datacenters " + String.join(" and ", datacenters) + ", each " + one
              + ", every node seeded with every other node of both, peer links unencrypted "
              + "(secure_server_option: none)";
    }
  }

  /** A conversation with the one-datacenter cluster. */
  Conversation(String name, String about, Consumer<Target> before, List<Step> steps) {
    this(name, about, Shape.ONE_DATACENTER, before, steps);
  }

  /**
   * Every conversation, in the order they run: those of one shape together, on one cluster (the one
   * that breaks nodes last in its shape).
   */
  static List<Conversation> all() {
    return List.of(
        DifferentialConversation.conversation(),
        ContractConversations.commandShapes(),
        ContractConversations.multiKey(),
        ContractConversations.errors(),
        TwoRegionsConversation.conversation());
  }

  static Conversation named(String name) {
    return all().stream()
        .filter(c -> c.name.equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no conversation named " + name));
  }
}
