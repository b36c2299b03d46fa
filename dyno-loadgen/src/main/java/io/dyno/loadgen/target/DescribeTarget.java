package io.dyno.loadgen.target;

import io.dyno.core.HostToken;
import io.dyno.core.topology.ClusterDescription;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Reads the cluster described by a {@code cluster_describe} URL (Dynomite's shape or
 * Dynomite-manager's) once, into a fixed node list.
 */
public final class DescribeTarget {
  private DescribeTarget() {}

  public static StaticTarget fetch(String url) {
    try {
      HttpClient http =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalArgumentException("target " + url + ": HTTP " + r.statusCode());
      }
      List<HostToken> tokens = parse(url, r.body());
      return new StaticTarget(tokens, "cluster described at " + url);
    } catch (IOException e) {
      throw new IllegalArgumentException("target " + url + ": cannot read it: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalArgumentException("target " + url + ": interrupted", e);
    }
  }

  /**
   * Reads both shapes through Dyno's own reader ({@link ClusterDescription}): Dynomite's
   * (port = peer port; the client port is taken as peer port + 1, Dynomite's 8101/8102 convention)
   * and Dynomite-manager's flat array (port = client port).
   */
  static List<HostToken> parse(String url, String body) {
    try {
      return ClusterDescription.parse(body).hostTokens();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "target " + url + ": not a cluster_describe document: " + e.getMessage(), e);
    }
  }
}
