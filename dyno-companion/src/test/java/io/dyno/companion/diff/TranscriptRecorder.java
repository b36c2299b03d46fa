package io.dyno.companion.diff;

import static io.dyno.companion.diff.Wire.cmd;

import io.dyno.companion.dynomite.DynomiteCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records every {@link Conversation} against a real Dynomite cluster of the replay's shape and
 * writes one transcript per conversation. Run by hand where a binary exists
 * ({@code DYNO_DYNOMITE_BINARY=/path/to/dynomite bash scripts/record-transcripts.sh}); CI never
 * records, it replays ({@link TranscriptReplayTest}).
 *
 * <p>A transcript whose steps and server come out the same as the committed file is left
 * untouched (its recording date too), so recording twice against the same server changes no byte.
 */
public final class TranscriptRecorder {
  /** System property naming the conversations to record, e.g. {@code -Ddyno.record.only=two-regions}. */
  static final String ONLY = "dyno.record.only";

  static final Duration PEER_TIMEOUT = Duration.ofMillis(1000);

  private TranscriptRecorder() {}

  public static void main(String[] args) {
    Path dir = Path.of(args.length > 0 ? args[0] : Transcript.SOURCE_DIR);
    if (!Files.isDirectory(dir.getParent())) {
      throw new IllegalArgumentException(
          "run from the repository root, or name the transcript folder: " + dir);
    }
    String today = LocalDate.now(ZoneOffset.UTC).toString();
    List<Conversation> chosen = chosen(System.getProperty(ONLY, ""));
    for (Conversation.Shape shape : Conversation.Shape.values()) {
      if (chosen.stream().anyMatch(c -> c.shape() == shape)) {
        try (DynomiteTarget real = startReal(shape)) {
          recordAll(shape, chosen, real, dir, today);
        }
      }
    }
  }

  /**
   * The conversations named in {@code only} (comma-separated), or every one when it is blank: each
   * conversation prepares its cluster itself, so one can be recorded alone.
   */
  static List<Conversation> chosen(String only) {
    List<String> names = only.isBlank() ? List.of() : List.of(only.split(","));
    List<Conversation> out = Conversation.all().stream()
        .filter(c -> names.isEmpty() || names.contains(c.name()))
        .toList();
    if (out.size() < names.size()) {
      throw new IllegalArgumentException("no conversation named in " + names + "; there are "
          + Conversation.all().stream().map(Conversation::name).toList());
    }
    return out;
  }

  /** Records the conversations of one shape, one after another on the same cluster. */
  private static void recordAll(
      Conversation.Shape shape,
      List<Conversation> chosen,
      DynomiteTarget real,
      Path dir,
      String today) {
    String server = serverVersion(real);
    for (Conversation c : chosen) {
      if (c.shape() == shape) {
        long t0 = System.nanoTime();
        Transcript fresh = new Transcript(c.name(), server, today, record(c, real));
        Path file = dir.resolve(Transcript.fileName(c.name()));
        Transcript old = Files.exists(file) ? Transcript.parse(c.name(), read(file)) : null;
        boolean same =
            old != null && old.server().equals(server) && old.steps().equals(fresh.steps());
        if (!same) {
          fresh.write(dir, c.about(), shape.describe());
        }
        System.out.printf(
            "%-16s %4d steps in %5.1f s: %s%n",
            c.name(),
            fresh.steps().size(),
            (System.nanoTime() - t0) / 1e9,
            same
                ? "unchanged"
                : old == null ? "written" : "CHANGED, rewritten " + changedSteps(old, fresh));
      }
    }
  }

  static DynomiteTarget startReal(Conversation.Shape shape) {
    return new DynomiteTarget(DynomiteCluster.builder()
        .datacenters(shape.datacenters.toArray(String[]::new))
        .racks(3)
        .nodesPerRack(2)
        .hashtag("{}")
        .timeout(PEER_TIMEOUT)
        .start());
  }

  /** Runs the conversation's preparation, then each step, on the target. */
  static List<Transcript.Recorded> record(Conversation c, Target t) {
    c.before().accept(t);
    List<Transcript.Recorded> out = new ArrayList<>();
    for (Step s : c.steps()) {
      out.add(new Transcript.Recorded(s.name(), s.run().apply(t)));
    }
    return out;
  }

  private static final Pattern VERSION = Pattern.compile("\"version\":\\s*\"([^\"]*)\"");
  private static final Pattern REDIS_VERSION = Pattern.compile("redis_version:(\\S+)");

  /** "dynomite v0.6.21-rc2-22-g2046b05, redis 7.0.15", from /info and the first node's Redis. */
  static String serverVersion(Target t) {
    byte[] req =
        "GET /info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    Matcher v = VERSION.matcher(
        Wire.exchange(t.adminPort(0), req, Integer.MAX_VALUE, 3000).text());
    Matcher r = REDIS_VERSION.matcher(
        Wire.exchange(t.redisPort(0), cmd("INFO", "server"), 1, 3000).text());
    return "dynomite " + (v.find() ? v.group(1) : "(version not in /info)") + ", redis "
        + (r.find() ? r.group(1) : "(version not in INFO)");
  }

  private static String changedSteps(Transcript old, Transcript fresh) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < Math.max(old.steps().size(), fresh.steps().size()); i++) {
      var a = i < old.steps().size() ? old.steps().get(i) : null;
      var b = i < fresh.steps().size() ? fresh.steps().get(i) : null;
      if (!Objects.equals(a, b)) {
        names.add("#" + (i + 1) + " " + (b != null ? b.name() : a.name()));
      }
    }
    return names.size() > 5
        ? names.subList(0, 5) + " and " + (names.size() - 5) + " more"
        : names.toString();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
