package io.dyno.companion.diff;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a real Dynomite answered to one conversation: a header (server version, recording date,
 * cluster shape) and one recorded line per step. The file ends its header with a SHA-256 of
 * everything else, written by {@link TranscriptRecorder}: an edit made without re-recording is
 * refused on read. (It keeps honest people honest; anyone can recompute it, which is why the
 * README says transcripts are re-recorded, never edited, and review holds to that.)
 *
 * <pre>
 * # ...comment lines...
 * # server: dynomite v0.6.21-rc2-22-g2046b05, redis 7.0.15
 * # recorded: 2026-11-24
 * # sha256: 3f1c...
 * == strings
 * +OK\r\n$5\r\nhello\r\n...
 * </pre>
 */
record Transcript(String conversation, String server, String recorded, List<Recorded> steps) {
  /** Where the transcripts live, as test resources of this module. */
  static final String RESOURCE_DIR = "/io/dyno/companion/transcripts/";

  static final String SOURCE_DIR =
      "dyno-companion/src/test/resources/io/dyno/companion/transcripts";

  record Recorded(String name, String answer) {}

  static String fileName(String conversation) {
    return conversation + ".transcript";
  }

  /** The committed transcript of a conversation, checksum verified. */
  static Transcript load(String conversation) {
    String file = RESOURCE_DIR + fileName(conversation);
    try (InputStream in = Transcript.class.getResourceAsStream(file)) {
      if (in == null) {
        throw new IllegalStateException(
            "no transcript " + file + " on the test classpath: record it with "
                + "scripts/record-transcripts.sh (needs a real Dynomite binary)");
      }
      return parse(conversation, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Transcript parse(String conversation, String text) {
    String server = null;
    String recorded = null;
    String sha = null;
    StringBuilder hashed = new StringBuilder(); // the text without its checksum line, as rendered
    List<Recorded> steps = new ArrayList<>();
    String pendingName = null;
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith("# sha256: ")) {
        sha = line.substring("# sha256: ".length());
        continue;
      }
      hashed.append(line).append(i < lines.length - 1 ? "\n" : "");
      if (line.startsWith("# server: ")) {
        server = line.substring("# server: ".length());
      } else if (line.startsWith("# recorded: ")) {
        recorded = line.substring("# recorded: ".length());
      } else if (line.startsWith("== ")) {
        pendingName = line.substring(3);
      } else if (pendingName != null) {
        steps.add(new Recorded(pendingName, line));
        pendingName = null;
      }
    }
    String file = fileName(conversation);
    if (sha == null || server == null || recorded == null) {
      throw new IllegalStateException(
          file + ": no '# server:', '# recorded:' or '# sha256:' header line");
    }
    if (!sha.equals(sha256(hashed.toString()))) {
      throw new IllegalStateException(
          file + " does not match the checksum its recorder wrote: it was edited by hand. "
              + "Transcripts are re-recorded against a real Dynomite (scripts/record-transcripts.sh), never edited");
    }
    return new Transcript(conversation, server, recorded, List.copyOf(steps));
  }

  /** The file's text, its checksum included. */
  String render(String about, String cluster) {
    StringBuilder body = new StringBuilder();
    body.append("# What a real Dynomite answered to the conversation '")
        .append(conversation)
        .append("' (")
        .append(about)
        .append(").\n");
    body.append(
        "# Written by io.dyno.companion.diff.TranscriptRecorder (scripts/record-transcripts.sh): "
            + "re-record it, never edit it.\n");
    body.append("# cluster: ").append(cluster).append('\n');
    body.append("# server: ").append(server).append('\n');
    body.append("# recorded: ").append(recorded).append('\n');
    for (Recorded s : steps) {
      if (s.name.contains("\n") || s.answer.contains("\n")) {
        throw new IllegalStateException(
            "step '" + s.name + "' has a line break in its name or answer");
      }
      body.append("== ").append(s.name).append('\n').append(s.answer).append('\n');
    }
    String text = body.toString();
    int afterHeader = text.indexOf("\n== ") + 1;
    String sha = "# sha256: " + sha256(text) + "\n";
    return afterHeader <= 0
        ? text + sha
        : text.substring(0, afterHeader) + sha + text.substring(afterHeader);
  }

  void write(Path dir, String about, String cluster) {
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve(fileName(conversation)), render(about, cluster), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
