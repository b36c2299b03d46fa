package io.dyno.core.topology;

import java.util.Locale;

/**
 * A Dynomite node's state, as its admin port reports it ({@code GET /state/get_state} answers
 * {@code State: NORMAL}) and sets it ({@code /state/standby}, {@code /state/writes_only},
 * {@code /state/resuming}, {@code /state/normal}). What the node does with a request in each state
 * is Dynomite's rule, for clients and for its peers' replication alike; the client sends nothing to
 * a node that does not {@linkplain #serves() serve} while another replica can take it.
 */
public enum NodeState {
  /** Serves reads and writes. */
  NORMAL,
  /**
   * Refuses every request, reads and writes, from clients and from peers (a peer's replicated write
   * is dropped): {@code Dynomite: Dynomite's current state does not allow this request}. Set while a
   * node is warmed up from a replica, or by an operator.
   */
  STANDBY,
  /**
   * Refuses reads; queues writes without sending them to its Redis until {@link #RESUMING} (a write
   * queued longer than the node's timeout fails with {@code Storage: Datastore refused connection}).
   */
  WRITES_ONLY,
  /** Refuses reads; sends the writes queued in {@link #WRITES_ONLY} and new ones to its Redis. */
  RESUMING,
  /**
   * The state a node starts in; it turns {@link #NORMAL} by itself right after start. Requests
   * that come meanwhile are held, not served.
   */
  JOINING,
  /** Any other name Dynomite reports ({@code INIT}, {@code DOWN}, {@code RESET}, {@code Unknown}). */
  OTHER;

  /**
   * {@return true when the node serves requests as a replica should: only in {@link #NORMAL}} In
   * every other state Dynomite refuses reads, and drops writes ({@link #STANDBY}) or holds them
   * until an operator step ({@link #WRITES_ONLY}, and {@link #JOINING} or {@link #OTHER}, which have
   * no request path of their own), so the client keeps its calls off the node while another replica
   * can take them.
   */
  public boolean serves() {
    return this == NORMAL;
  }

  /**
   * Reads the body of Dynomite's {@code /state/get_state} answer.
   *
   * @param body the answer's body, e.g. {@code "State: NORMAL\n"}
   * @return the state it names ({@link #OTHER} for a name this enum does not list)
   * @throws IllegalArgumentException when the body is not a state answer (for example Dynomite's
   *     {@code OK}, which it gives to any admin path it does not know)
   */
  public static NodeState parse(String body) {
    String text = body == null ? "" : body.strip();
    if (!text.startsWith("State: ")) {
      throw new IllegalArgumentException(
          "not a /state/get_state answer (expected 'State: <name>'): '"
              + (text.length() > 60 ? text.substring(0, 60) + "…" : text) + "'");
    }
    String name = text.substring("State: ".length()).strip().toUpperCase(Locale.ROOT);
    for (NodeState s : values()) {
      if (s != OTHER && s.name().equals(name)) {
        return s;
      }
    }
    return OTHER;
  }
}
