package io.dyno.e2e.faults;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Packet faults on one loopback TCP port, made with {@code iptables} rules in the INPUT chain (a
 * loopback packet passes INPUT once, so dropping there by destination port and by source port
 * covers both directions). Every rule carries a comment unique to this instance, so {@link #clear()}
 * removes only ours, whoever else adds rules at the same time; a shutdown hook clears them too if
 * the JVM exits first. Needs root (tests here and in CI run as root); nothing else is touched.
 *
 * <p>Blackhole: every packet dropped, no RST, so open connections go silent and connects hang.
 * Loss: each packet dropped with the given probability ({@code -m statistic --mode random}).
 */
final class PacketRules implements AutoCloseable {
  private static final String CHAIN = "INPUT";

  private final String tag = "dyno-faults-" + UUID.randomUUID();
  private final List<List<String>> added = new ArrayList<>();
  private final Thread cleanupHook = new Thread(this::clearQuietly, "dyno-faults-iptables-cleanup");
  private boolean hookInstalled;

  /** The comment each rule of this instance carries. */
  String tag() {
    return tag;
  }

  /** Drops every packet to and from {@code port}, both directions. */
  synchronized void blackhole(int port) {
    drop(port, List.of());
  }

  /** Drops each packet to and from {@code port} with probability {@code p} (each direction apart). */
  synchronized void loss(int port, double p) {
    if (p <= 0 || p >= 1) {
      throw new IllegalArgumentException("loss probability must be in (0, 1), was " + p);
    }
    drop(
        port,
        List.of(
            "-m",
            "statistic",
            "--mode",
            "random",
            "--probability",
            String.format(Locale.ROOT, "%.4f", p)));
  }

  private void drop(int port, List<String> match) {
    installHook();
    for (String side : List.of("--dport", "--sport")) {
      List<String> rule = new ArrayList<>(List.of("-p", "tcp", side, Integer.toString(port)));
      rule.addAll(match);
      rule.addAll(List.of("-m", "comment", "--comment", tag, "-j", "DROP"));
      List<String> insert = new ArrayList<>(List.of("-I", CHAIN, "1"));
      insert.addAll(rule);
      iptables(insert);
      added.add(rule);
    }
  }

  /**
   * Removes every rule carrying this instance's tag (also any left by a half-failed add), and
   * checks none is left.
   */
  synchronized void clear() {
    for (List<String> rule : added) {
      List<String> delete = new ArrayList<>(List.of("-D", CHAIN));
      delete.addAll(rule);
      iptables(delete);
    }
    added.clear();
    List<String> left = ourRules();
    if (!left.isEmpty()) {
      throw new IllegalStateException("iptables rules tagged " + tag + " are left: " + left);
    }
  }

  /** The INPUT rules that carry this instance's tag, as {@code iptables -S} prints them. */
  List<String> ourRules() {
    String listing = iptables(List.of("-S", CHAIN));
    return listing.lines().filter(l -> l.contains(tag)).toList();
  }

  /** Clears the rules and drops the shutdown hook. Idempotent. */
  @Override
  public synchronized void close() {
    clear();
    if (hookInstalled) {
      try {
        Runtime.getRuntime().removeShutdownHook(cleanupHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs now: it clears the same rules
      }
      hookInstalled = false;
    }
  }

  private void installHook() {
    if (!hookInstalled) {
      Runtime.getRuntime().addShutdownHook(cleanupHook);
      hookInstalled = true;
    }
  }

  private void clearQuietly() {
    try {
      // A rule added by a lost call is not in `added`: delete by listing what carries the tag.
      for (String line : ourRules()) {
        List<String> delete =
            new ArrayList<>(List.of(line.replaceFirst("^-A ", "-D ").split(" ")));
        iptables(delete.stream().map(s -> s.replace("\"", "")).toList());
      }
    } catch (RuntimeException e) {
      System.err.println("could not remove iptables rules tagged " + tag + ": " + e.getMessage());
    }
  }

  /** Runs {@code iptables -w <args>}; its output, or an error naming the command and what it printed. */
  private static String iptables(List<String> args) {
    List<String> cmd = new ArrayList<>(List.of("iptables", "-w", "5"));
    cmd.addAll(args);
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out;
      try (InputStream in = p.getInputStream()) {
        out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 30 s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + p.exitValue()
            + "): " + out.strip() + " (packet faults need root and iptables)");
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + String.join(" ", cmd) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + String.join(" ", cmd), e);
    }
  }
}
