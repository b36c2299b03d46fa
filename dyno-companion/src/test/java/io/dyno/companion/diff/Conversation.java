package io.dyno.companion.diff;

import java.util.List;
import java.util.function.Consumer;

/**
 * A scripted conversation with a 3 racks x 2 nodes cluster (tokens {0, 2^31-1}, hash tag {@code {}},
 * Redis backends). Recorded once against real Dynomite into a transcript of the same name, then
 * replayed against the companion on every build. {@code before} runs on a target ahead of the
 * steps (flushing what earlier conversations left), and is not recorded.
 */
record Conversation(String name, String about, Consumer<Target> before, List<Step> steps) {
  /** Every conversation, in the order they run on one cluster (the one that breaks nodes last). */
  static List<Conversation> all() {
    return List.of(
        DifferentialConversation.conversation(),
        ContractConversations.commandShapes(),
        ContractConversations.multiKey(),
        ContractConversations.errors());
  }

  static Conversation named(String name) {
    return all().stream()
        .filter(c -> c.name.equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no conversation named " + name));
  }
}
