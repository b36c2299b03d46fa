package io.dyno.core.engine.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.internal.KnownCommands;
import io.dyno.core.internal.KnownCommands.Kind;
import java.util.List;
import java.util.Objects;

/**
 * One call as data, built once per call and handed to the engine's entry points
 * ({@link DynoExecutor#execute}, {@link DynoExecutor#executeAsync}, a {@link ScatterPart}): the
 * command's name, the key it is routed by, its candidates (or none: the engine routes the key), its
 * {@link Kind} and whether it may run again after a failure of unknown outcome (both from the
 * command table, {@link KnownCommands}, unless the driver knows better from the arguments), and the
 * call's options with the client's defaults resolved: its consistency level and its hedging.
 *
 * <p>Whether a call is hedged is decided here, in {@link #hedgeOn}: a read, hedging on (the
 * options', else the client's), and a second candidate to hedge to. Immutable.
 *
 * <pre>{@code
 * CallSpec get = engine.call("GET").key(key).build();              // routed by the engine
 * String v = engine.execute(get, c -> c.get(key));
 * CallSpec scan = engine.call("SCAN").on(List.of(node)).options(o).build();
 * }</pre>
 */
public final class CallSpec {
  private final String command;
  private final Kind kind;
  private final boolean idempotent;
  private final Object key;
  private final List<Host> candidates;
  private final CallOptions options;
  private final ConsistencyLevel consistency;
  private final HedgePolicy hedging; // null: not hedged whatever the candidates

  private CallSpec(
      String command,
      Kind kind,
      boolean idempotent,
      Object key,
      List<Host> candidates,
      CallOptions options,
      ConsistencyLevel consistency,
      HedgePolicy hedging) {
    this.command = command;
    this.kind = kind;
    this.idempotent = idempotent;
    this.key = key;
    this.candidates = candidates;
    this.options = options;
    this.consistency = consistency;
    this.hedging = hedging;
  }

  /**
   * Starts the spec of a call of {@code command}, its kind and idempotency taken from the command
   * table (a command not listed is a write, not idempotent), the defaults resolved against
   * {@code config}. Drivers ask the engine instead ({@link DynoExecutor#call}).
   *
   * @param command the command's name, upper case (e.g. {@code "GET"}, {@code "SCRIPT LOAD"})
   * @param config the client's configuration in force
   * @return a new builder
   */
  public static Builder builder(String command, DynoConfig config) {
    return new Builder(command, config);
  }

  /** {@return the command's name, for metrics, events and error messages} */
  public String command() {
    return command;
  }

  /** {@return what the command does to the data: decides hedging, mirroring and the rack rules} */
  public Kind kind() {
    return kind;
  }

  /** {@return true when the command only reads} */
  public boolean read() {
    return kind == Kind.READ;
  }

  /** {@return whether the command may run again after a failure whose outcome is unknown} */
  public boolean idempotent() {
    return idempotent;
  }

  /** {@return the key the call is routed by ({@code String} or {@code byte[]}), or null} */
  public Object key() {
    return key;
  }

  /** {@return the nodes that may serve the call, in preference order; null: the engine routes the key} */
  public List<Host> candidates() {
    return candidates;
  }

  /** {@return the call's options as given (never null)} */
  public CallOptions options() {
    return options;
  }

  /** {@return the call's consistency level: the options', else the client's; null for the server's} */
  public ConsistencyLevel consistency() {
    return consistency;
  }

  /**
   * The hedging of this call on {@code nodes}: its policy when the command reads, hedging is on
   * (the options', else the client's) and there is a second node to hedge to; else null. The one
   * place that decides whether a call is hedged.
   *
   * @param nodes the candidates the call runs on
   * @return the policy, or null when the call is not hedged
   */
  public HedgePolicy hedgeOn(List<Host> nodes) {
    return hedging != null && nodes != null && nodes.size() >= 2 ? hedging : null;
  }

  /**
   * {@return whether this call is hedged} On its candidates when it has them, else as far as the
   * command and its options say (its candidates, once routed, may still be too few).
   */
  public boolean hedged() {
    return candidates == null ? hedging != null : hedgeOn(candidates) != null;
  }

  /**
   * This call on other candidates (a part of a command split over nodes, a route taken by the
   * engine), everything else the same.
   *
   * @param key the key the candidates were routed by, or null
   * @param nodes the nodes, in preference order; not empty
   * @return a new spec
   */
  public CallSpec on(Object key, List<Host> nodes) {
    return new CallSpec(command, kind, idempotent, key, nodes, options, consistency, hedging);
  }

  @Override
  public String toString() {
    return command + " (" + kind + (idempotent ? ", idempotent" : "") + ")";
  }

  /** Builds a {@link CallSpec}; see {@link CallSpec#builder}. Not thread-safe; one per call. */
  public static final class Builder {
    private final String command;
    private final DynoConfig config;
    private Kind kind;
    private boolean idempotent;
    private Object key;
    private List<Host> candidates;
    private CallOptions options = CallOptions.defaults();

    private Builder(String command, DynoConfig config) {
      this.command = Objects.requireNonNull(command, "command");
      this.config = Objects.requireNonNull(config, "config");
      KnownCommands.Entry e = KnownCommands.entry(command);
      this.kind = e == null ? Kind.WRITE : e.kind();
      this.idempotent = e != null && e.idempotent();
    }

    /**
     * Sets the command's kind in this call's shape (e.g. {@code SORT ... STORE} writes).
     *
     * @param k the kind; not null
     * @return this builder
     */
    public Builder kind(Kind k) {
      this.kind = Objects.requireNonNull(k, "kind");
      return this;
    }

    /**
     * Sets whether the command may run again after a failure of unknown outcome, in this call's
     * shape (e.g. {@code SET ... NX} may not).
     *
     * @param yes true when a second run has the same effect
     * @return this builder
     */
    public Builder idempotent(boolean yes) {
      this.idempotent = yes;
      return this;
    }

    /**
     * Sets the key the call is routed by; without {@link #on} the engine routes it.
     *
     * @param k a {@code String} or {@code byte[]} key, or null
     * @return this builder
     */
    public Builder key(Object k) {
      this.key = k;
      return this;
    }

    /**
     * Sets the nodes that may serve the call, in preference order (e.g. from
     * {@link DynoExecutor#route}).
     *
     * @param nodes the nodes; null to have the engine route the key
     * @return this builder
     */
    public Builder on(List<Host> nodes) {
      this.candidates = nodes;
      return this;
    }

    /**
     * Sets the call's options.
     *
     * @param o the options, or null for the client's defaults
     * @return this builder
     */
    public Builder options(CallOptions o) {
      this.options = o == null ? CallOptions.defaults() : o;
      return this;
    }

    /**
     * {@return the spec, the options resolved against the client's configuration}
     *
     * @throws IllegalArgumentException when the options ask for a consistency level in datastore
     *     mode, which has none
     */
    public CallSpec build() {
      return new CallSpec(
          command, kind, idempotent, key, candidates, options, consistency(), hedging());
    }

    private ConsistencyLevel consistency() {
      ConsistencyLevel level = options.consistency();
      if (level != null && config.datastoreMode()) {
        throw new IllegalArgumentException(command + ": consistency " + level
            + " was requested, but this client runs in datastore mode (straight to each node's"
            + " Redis), which has no Dynomite consistency; drop the consistency option or turn"
            + " datastoreMode off");
      }
      return level != null ? level : config.defaultConsistency();
    }

    private HedgePolicy hedging() {
      if (!kind.hedgeable()) {
        return null;
      }
      HedgePolicy h = options.hedging() != null ? options.hedging() : config.hedgeReads();
      return h != null && h.enabled() ? h : null;
    }
  }
}
