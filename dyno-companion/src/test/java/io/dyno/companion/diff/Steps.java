package io.dyno.companion.diff;

import static io.dyno.companion.diff.Wire.cmd;
import static io.dyno.companion.diff.Wire.concat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kinds of step a conversation is made of: raw RESP on a client port, raw HTTP on an admin
 * port, and reads of a node's Redis directly. Each turns the answer into one line, normalised only
 * where two faithful servers must differ: ports (named after their node), /info's values (its key
 * names and nesting are kept), and arrays of strings in Redis's per-process hash order (sorted).
 */
final class Steps {
  /** How long a step waits for the replies it expects (a closing server answers sooner). */
  static final int WAIT = 1500;

  private Steps() {}

  /** The commands in one write on a new connection, then one bounded read. */
  static Step resp(String name, int node, byte[]... commands) {
    return respSeq(name, node, List.of(concat(commands)), commands.length);
  }

  /** Several writes on one connection, each followed by its bounded read (one reply per command expected). */
  static Step respSeq(String name, int node, List<byte[]> writes) {
    return respSeq(name, node, writes, -1);
  }

  private static Step respSeq(String name, int node, List<byte[]> writes, int replies) {
    return new Step(name, t -> {
      List<String> out = new ArrayList<>();
      try (Wire.Conn conn = new Wire.Conn(t.clientPort(node))) {
        for (byte[] w : writes) {
          if (conn.closed()) {
            out.add("<not sent: closed>");
            continue;
          }
          int expect =
              replies >= 0 ? replies : Wire.completeReplies(w); // a command is a complete array too
          out.add(conn.exchange(w, expect, WAIT).describe(WAIT));
        }
      }
      return String.join(" | ", out);
    });
  }

  /** Something done to the cluster (a fault, a repair) whose answer is not compared. */
  static Step act(String name, Consumer<Target> action) {
    return new Step(name, t -> {
      action.accept(t);
      return "done";
    });
  }

  /** The same step with every array of strings in its replies sorted (Redis's hash order is per process). */
  static Step sorted(Step s) {
    return new Step(s.name() + " (sorted)", t -> {
      String raw = s.run().apply(t);
      return Arrays.stream(raw.split(" \\| "))
          .map(Steps::sortReplies)
          .reduce((a, b) -> a + " | " + b)
          .orElse("");
    });
  }

  private static String sortReplies(String escaped) {
    if (escaped.startsWith("<")) {
      return escaped;
    }
    String suffix = escaped.endsWith(" <closed>") ? " <closed>" : "";
    byte[] b = escaped
        .substring(0, escaped.length() - suffix.length())
        .replace("\\r", "\r")
        .replace("\\n", "\n")
        .getBytes(StandardCharsets.UTF_8);
    int[] pos = {0};
    List<Object> replies = new ArrayList<>();
    while (pos[0] < b.length) {
      replies.add(sortTree(Wire.parse(b, pos)));
    }
    return replies + suffix;
  }

  private static Object sortTree(Object o) {
    if (!(o instanceof List<?> l)) {
      return o;
    }
    List<Object> copy = new ArrayList<>();
    for (Object x : l) {
      copy.add(sortTree(x));
    }
    if (copy.stream().allMatch(x -> x instanceof String)) {
      copy.sort((a, b2) -> ((String) a).compareTo((String) b2));
    }
    return copy;
  }

  /** A read of the cluster's Redis processes directly (what was stored or replicated where). */
  static Step redisState(String name, Function<Target, String> read) {
    return new Step(name, read);
  }

  /** The value of one key in every node's Redis, read directly. */
  static String valueEverywhere(Target t, String key) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < t.size(); i++) {
      sb.append(t.label(i))
          .append('=')
          .append(Wire.exchange(t.redisPort(i), cmd("GET", key), 1, WAIT).describe(WAIT))
          .append(' ');
    }
    return sb.toString().strip();
  }

  /**
   * Every node's keys, read from its redis-server directly, once replication has settled: a marker
   * written through node 0 after everything else must first be in every rack (replication from one
   * connection keeps its order).
   */
  static String keysPerNode(Target t) {
    for (String tag : List.of("foo", "bar")) {
      String key = "{" + tag + "}zz-marker";
      Wire.exchange(t.clientPort(0), cmd("SET", key, "1"), 1, WAIT);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (true) {
        int copies = 0;
        for (int i = 0; i < t.size(); i++) {
          if (Wire.exchange(t.redisPort(i), cmd("EXISTS", key), 1, WAIT).text().equals(":1\r\n")) {
            copies++;
          }
        }
        if (copies == 3 || System.nanoTime() > deadline) {
          break;
        }
        Wire.pause(20); // poll interval of a bounded wait
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < t.size(); i++) {
      byte[] b = Wire.exchange(t.redisPort(i), cmd("KEYS", "*"), 1, WAIT).bytes();
      TreeSet<String> keys = new TreeSet<>();
      for (Object k : (List<?>) Wire.parse(b, new int[] {0})) {
        keys.add(((String) k).substring(1));
      }
      sb.append(" ").append(t.label(i)).append(": ").append(keys);
    }
    return sb.toString().strip();
  }

  private static final Pattern PORT = Pattern.compile("\"port\":(\\d+)");
  private static final Pattern KEY = Pattern.compile("\"([^\"]*)\":\\s*(\\{?)|(\\})");

  /** One raw HTTP GET on a node's admin port. */
  static Step http(String name, int node, String path) {
    return new Step("HTTP GET " + name, t -> {
      byte[] req = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      Wire.Reply r = Wire.exchange(t.adminPort(node), req, Integer.MAX_VALUE, 3000);
      String text = r.text();
      if (path.equals("/cluster_describe")) {
        // ports differ between the clusters: each becomes the name of the node listening on it
        Map<Integer, String> names = new LinkedHashMap<>();
        for (int i = 0; i < t.size(); i++) {
          names.put(t.peerPort(i), t.label(i));
        }
        Matcher m = PORT.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
          m.appendReplacement(
              sb,
              "\"port\":<"
                  + names.getOrDefault(Integer.parseInt(m.group(1)), "unknown " + m.group(1))
                  + ">");
        }
        m.appendTail(sb);
        text = sb.toString();
      } else if (path.equals("/info")) {
        text = infoShape(t, node, text);
      }
      return Wire.escape(text.getBytes(StandardCharsets.UTF_8))
          + (r.closed() ? " <closed>" : " <open>");
    });
  }

  /** /info reduced to its header (length masked) and its key paths, without the companion's own object. */
  private static String infoShape(Target t, int node, String text) {
    int split = text.indexOf("\r\n\r\n");
    if (split < 0) {
      return text;
    }
    String head =
        text.substring(0, split).replaceAll("Content-Length: \\d+", "Content-Length: <n>");
    String body = text.substring(split + 4);
    List<String> path = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    Matcher m = KEY.matcher(body);
    while (m.find()) {
      if (m.group(3) != null) {
        if (!path.isEmpty()) {
          path.remove(path.size() - 1);
        }
        continue;
      }
      String k = m.group(1).equals("127.0.0.1:" + t.redisPort(node)) ? "<server>" : m.group(1);
      String full = String.join(".", path) + (path.isEmpty() ? "" : ".") + k;
      if (!m.group(2).isEmpty()) {
        path.add(k);
      }
      if (!full.equals("companion") && !full.startsWith("companion.")) {
        keys.add(full);
      }
    }
    return head + "\r\n\r\nkeys: " + keys;
  }

  /**
   * One raw HTTP GET on a node's admin port, answered by the named string fields of its JSON body
   * ({@code "dc":"dc2"} becomes {@code dc=dc2}), in the order asked: where the node says it is.
   */
  static Step httpFields(String name, int node, String path, String... fields) {
    return new Step("HTTP GET " + name, t -> {
      byte[] req = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      String text =
          Wire.exchange(t.adminPort(node), req, Integer.MAX_VALUE, 3000).text();
      List<String> out = new ArrayList<>();
      for (String f : fields) {
        Matcher m =
            Pattern.compile("\"" + Pattern.quote(f) + "\":\\s*\"([^\"]*)\"").matcher(text);
        out.add(f + "=" + (m.find() ? m.group(1) : "<absent>"));
      }
      return String.join(" ", out);
    });
  }

  /** One node's Redis value of the key, polled until it is set or 3 s passed (replication is asynchronous). */
  static String awaitValue(Target t, String key, int node) {
    long deadline = System.nanoTime() + 3_000_000_000L;
    while (true) {
      String v = Wire.exchange(t.redisPort(node), cmd("GET", key), 1, WAIT).describe(WAIT);
      if (!v.startsWith("$-1") || System.nanoTime() > deadline) {
        return t.label(node) + "=" + v;
      }
      Wire.pause(20); // poll interval of a bounded wait
    }
  }

  /** Deletes every key and script in every node's Redis, directly. */
  static void flushAll(Target t) {
    for (int i = 0; i < t.size(); i++) {
      Wire.exchange(t.redisPort(i), concat(cmd("FLUSHALL"), cmd("SCRIPT", "FLUSH")), 2, 2000);
    }
  }
}
