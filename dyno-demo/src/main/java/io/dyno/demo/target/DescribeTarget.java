package io.dyno.demo.target;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.internal.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the cluster described by a {@code cluster_describe} URL (Dynomite's shape or
 * Dynomite-manager's) once, into a fixed node list.
 */
public final class DescribeTarget {
  private DescribeTarget() {}

  public static StaticTarget fetch(String url) {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalArgumentException("target " + url + ": HTTP " + r.statusCode());
      }
      List<HostToken> tokens = parse(url, r.body());
      if (tokens.isEmpty()) {
        throw new IllegalArgumentException("target " + url + ": the description lists no nodes");
      }
      return new StaticTarget(tokens, "cluster described at " + url);
    } catch (IOException e) {
      throw new IllegalArgumentException("target " + url + ": cannot read it: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalArgumentException("target " + url + ": interrupted", e);
    }
  }

  /**
   * Reads both shapes: Dynomite's {@code {"dcs":[{"name","racks":[{"name","servers":[{host,port,token}]}]}]}}
   * (port = peer port; the client port is taken as peer port + 1, Dynomite's 8101/8102 convention)
   * and Dynomite-manager's flat array of {@code {token, ip|hostname, zone|rack, dc, port}} (port = client port).
   */
  @SuppressWarnings("unchecked")
  static List<HostToken> parse(String url, String body) {
    Object doc = Json.parse(body);
    List<HostToken> out = new ArrayList<>();
    try {
      if (doc instanceof Map<?, ?> m) {
        for (Object dcObj : (List<Object>) m.get("dcs")) {
          Map<String, Object> dc = (Map<String, Object>) dcObj;
          for (Object rackObj : (List<Object>) dc.get("racks")) {
            Map<String, Object> rack = (Map<String, Object>) rackObj;
            for (Object sObj : (List<Object>) rack.get("servers")) {
              Map<String, Object> srv = (Map<String, Object>) sObj;
              int peerPort = Integer.parseInt(String.valueOf(srv.get("port")));
              Host h = Host.builder(String.valueOf(srv.get("host")), peerPort + 1)
                  .rack(String.valueOf(rack.get("name"))).datacenter(String.valueOf(dc.get("name"))).build();
              out.add(new HostToken(Long.parseLong(String.valueOf(srv.get("token"))), h));
            }
          }
        }
      } else {
        for (Object o : (List<Object>) doc) {
          Map<String, Object> e = (Map<String, Object>) o;
          Object ip = e.get("ip") != null ? e.get("ip") : e.get("hostname");
          Object rack = e.get("zone") != null ? e.get("zone") : e.get("rack");
          Host h = Host.builder(String.valueOf(ip), Integer.parseInt(String.valueOf(e.get("port"))))
              .rack(String.valueOf(rack)).datacenter(String.valueOf(e.getOrDefault("dc", "dc1"))).build();
          out.add(new HostToken(Long.parseLong(String.valueOf(e.get("token"))), h));
        }
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("target " + url + ": not a cluster_describe document: " + e, e);
    }
    return out;
  }
}
