package io.dyno.jedis.internal;

import io.dyno.core.HostToken;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Asks the cluster, at build, whether it hashes keys with the client's hash tag. Dynomite's own
 * {@code /cluster_describe} does not say, and a client whose tag differs from the cluster's
 * {@code hash_tag} sends multi-key commands over tagged keys to a node that does not hold them all:
 * wrong answers, not errors (SINTER an empty set).
 *
 * <p>The question: two keys {@code dyno:hashtag-probe:{t}<i>} that share a tag but whose whole keys
 * hash to different nodes of one rack, in one {@code EVAL "return 1" 2 key1 key2}. Dynomite runs
 * a script only when its keys are on one node, else answers
 * {@code Keys in the script cannot span multiple nodes}: the answer says whether the cluster hashes
 * by that tag. The script's result means one node; any other error (Dynomite's own, a peer down,
 * a state that refuses requests, a datastore that cannot run scripts) leaves it unknown. The
 * script touches no key; it runs on a connection of its own, closed after. A client without a tag
 * asks about {@code {}}, the tag nearly every deployment uses.
 */
public final class HashtagProbe {
  /** The probe's keys start with this; they are only named in an EVAL, never read or written. */
  static final String KEY_PREFIX = "dyno:hashtag-probe:";

  static final String SPANS_NODES = "cannot span multiple nodes";
  private static final String COMMON_TAG = "{}";

  private static final int MAX_CANDIDATES = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(HashtagProbe.class);

  private HashtagProbe() {}

  /** Sends one command to one node and returns its raw reply (an error reply throws). */
  @FunctionalInterface
  public interface Node {
    Object call(HostToken node, CommandArguments command) throws Exception;
  }

  /** Where the probe goes and which keys it names. */
  record Plan(HostToken node, String tag, String first, String second) {}

  /**
   * Fails when the cluster's hashing and the client's tag disagree; logs a warning when the
   * cluster cannot be asked, and does nothing when the answer cannot differ (no rack with two
   * owners, or a cluster too small to split two keys).
   *
   * @param app the client's name, for messages
   * @param topology the first topology; its hasher carries the tag in use
   * @param node sends the probe to one node
   * @throws IllegalArgumentException naming the {@code hashtag} setting, on a mismatch
   */
  public static void check(String app, Topology topology, Node node) {
    String clientTag = topology.hasher().hashtag();
    Plan plan = plan(topology, clientTag.isEmpty() ? COMMON_TAG : clientTag, topology.hasher());
    if (plan == null) {
      return;
    }
    CommandArguments eval = new CommandArguments(Protocol.Command.EVAL)
        .add("return 1")
        .add("2")
        .key(plan.first())
        .key(plan.second());
    boolean together;
    String answer;
    try {
      Object reply = node.call(plan.node(), eval);
      together = true;
      answer = String.valueOf(reply);
    } catch (JedisDataException e) {
      String m = String.valueOf(e.getMessage());
      if (!m.contains(SPANS_NODES)) {
        // Dynomite's own errors (a peer down, a state that refuses requests) and any other error
        // (a datastore that cannot run scripts) say nothing about where the keys live
        LOG.warn(
            "DynoJedisClient {}: could not check the cluster's hash tag: {} answered \"{}\" to the"
                + " probe EVAL over {} and {}",
            app,
            plan.node().host().id(),
            m,
            plan.first(),
            plan.second());
        return;
      }
      together = false;
      answer = m;
    } catch (Exception e) {
      LOG.warn(
          "DynoJedisClient {}: could not check the cluster's hash tag ({} did not answer the probe:"
              + " {}); if the cluster's hash_tag differs from this client's hashtag setting ({}),"
              + " multi-key commands over tagged keys give wrong answers",
          app,
          plan.node().host().id(),
          e.toString(),
          clientTag.isEmpty() ? "none" : "\"" + clientTag + "\"");
      return;
    }
    String asked = plan.node().host().id() + " answered \"" + answer + "\" to EVAL over "
        + plan.first() + " and " + plan.second() + ", keys that share the tag but whose whole keys"
        + " hash to different nodes";
    if (!clientTag.isEmpty() && !together) {
      throw new IllegalArgumentException("DynoJedisClient " + app
          + ": hash tag mismatch: this client is configured with hashtag(\"" + clientTag
          + "\") but the cluster does not hash by it (" + asked + "). Keys sharing a tag would be"
          + " sent to a node that does not own them all, and multi-key commands over them"
          + " (SINTER, SUNION, EVAL, ...) would give wrong answers. Remove hashtag(...) from the"
          + " client, or set hash_tag: \"" + clientTag + "\" in every node's dynomite.yml");
    }
    if (clientTag.isEmpty() && together) {
      throw new IllegalArgumentException("DynoJedisClient " + app
          + ": hash tag mismatch: the cluster hashes keys by the hash tag \"" + COMMON_TAG
          + "\" (its dynomite.yml sets hash_tag) but this client has none (" + asked + "). Keys"
          + " sharing a tag would be routed by their whole key, to a node that does not own them,"
          + " and multi-key commands over them would give wrong answers. Set hashtag(\""
          + COMMON_TAG + "\") on the client");
    }
  }

  /**
   * Two keys with the tag {@code tag} whose whole-key hashes fall to different owners in one rack
   * (the local rack when it has two owners), and the node to ask: the first key's owner by the
   * client's hashing, so that a cluster that agrees runs the script without forwarding it; null
   * when no rack has two owners.
   */
  static Plan plan(Topology topology, String tag, KeyHasher client) {
    if (!(topology instanceof TokenRingTopology ring)) {
      return null;
    }
    TreeMap<String, TreeMap<Long, HostToken>> racks = new TreeMap<>();
    for (HostToken ht : ring.hostTokens()) {
      racks
          .computeIfAbsent(ht.host().datacenter() + "/" + ht.host().rack(), k -> new TreeMap<>())
          .put(ht.token(), ht);
    }
    List<TreeMap<Long, HostToken>> candidates = new ArrayList<>();
    racks.forEach((name, owners) -> {
      if (owners.size() < 2) {
        return;
      }
      boolean local = owners.firstEntry().getValue().host().rack().equals(ring.localRack());
      boolean up = owners.values().stream().allMatch(ht -> ht.host().isUp());
      if (local && up) {
        candidates.add(0, owners);
      } else if (up) {
        candidates.add(owners);
      }
    });
    if (candidates.isEmpty()) {
      return null;
    }
    TreeMap<Long, HostToken> owners = candidates.get(0);
    KeyHasher whole = KeyHasher.noHashtag();
    String prefix = KEY_PREFIX + tag.charAt(0) + "t" + tag.charAt(1);
    String first = prefix + 0;
    HostToken firstOwner = owner(owners, whole.hash(first));
    for (int i = 1; i < MAX_CANDIDATES; i++) {
      String second = prefix + i;
      if (owner(owners, whole.hash(second)) != firstOwner) {
        return new Plan(owner(owners, client.hash(first)), tag, first, second);
      }
    }
    return null;
  }

  /** Dynomite's rule: the smallest token at or above the hash, wrapping to the smallest. */
  private static HostToken owner(TreeMap<Long, HostToken> owners, long hash) {
    var e = owners.ceilingEntry(hash);
    return e != null ? e.getValue() : owners.firstEntry().getValue();
  }
}
