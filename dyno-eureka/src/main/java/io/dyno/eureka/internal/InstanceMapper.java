package io.dyno.eureka.internal;

import io.dyno.core.Host;
import io.dyno.core.internal.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns Eureka instances into {@link Host}s: the one mapping shared by the REST reader
 * ({@code EurekaHostSupplier}) and the adapter over an application's own {@code EurekaClient}
 * (dyno-eureka-client). Each source first turns its instances into the neutral {@link Instance}.
 *
 * <p>For the REST reader it also reads Eureka's JSON for one application
 * ({@code {"application":{"instance":[...]}}}), in the two encodings Eureka servers have used over
 * the years: {@code instance} as an array or, for a single instance, as a bare object; ports as
 * {@code {"$":8102,"@enabled":"true"}} with number or string values.
 *
 * <p>Internal: public only so that dyno-eureka-client can share it; not an API.
 */
public final class InstanceMapper {
  /** What a mapping produced: the hosts, and one reason per instance that could not be used. */
  public record Result(List<Host> hosts, List<String> skipped) {}

  /**
   * One Eureka instance as both sources see it. Ports are text as registered (null when absent);
   * a port whose {@code enabled} flag is false is treated as absent. {@code availabilityZone} is the
   * AWS {@code availability-zone} of {@code dataCenterInfo} (null outside AWS).
   */
  public record Instance(
      String instanceId,
      String hostName,
      String ipAddr,
      String port,
      boolean portEnabled,
      String securePort,
      boolean securePortEnabled,
      Map<String, String> metadata,
      String availabilityZone,
      String status) {}

  private final Settings settings;

  public InstanceMapper(Settings settings) {
    this.settings = settings;
  }

  /** The mapping choices of {@code EurekaHostSupplier.Builder}; see there for their meaning. */
  public record Settings(
      int fixedPort,
      String portKey,
      String securePortKey,
      String datastorePortKey,
      String rackKey,
      String datacenterKey,
      String defaultRack,
      String defaultDatacenter) {}

  /**
   * Maps a parsed document. A document of the wrong shape throws (the whole answer is unusable);
   * a single instance that lacks what a {@link Host} needs is skipped with a reason.
   */
  public Result map(Object document, String app) {
    if (!(document instanceof Map<?, ?> top)) {
      throw new IllegalArgumentException(
          "expected a JSON object with an \"application\" field but found "
              + Json.typeName(document));
    }
    Object application = top.get("application");
    if (!(application instanceof Map<?, ?> appMap)) {
      throw new IllegalArgumentException("expected \"application\" to be an object but found "
          + (top.containsKey("application") ? Json.typeName(application) : "no such field"));
    }
    Object instances = appMap.get("instance");
    List<?> list;
    if (instances == null) {
      list = List.of();
    } else if (instances instanceof List<?> l) {
      list = l;
    } else if (instances instanceof Map<?, ?>) {
      list = List.of(instances);
    } else {
      throw new IllegalArgumentException(
          "expected \"application.instance\" to be an array but found " + Json.typeName(instances));
    }
    List<Instance> parsed = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      Object o = list.get(i);
      if (!(o instanceof Map<?, ?> inst)) {
        skipped.add("application " + app + " instance #" + i + ": expected an object but found "
            + Json.typeName(o));
        continue;
      }
      parsed.add(fromJson(inst));
    }
    Result r = map(parsed, app);
    if (skipped.isEmpty()) {
      return r;
    }
    skipped.addAll(r.skipped());
    return new Result(r.hosts(), List.copyOf(skipped));
  }

  /** Maps instances; one that lacks what a {@link Host} needs is skipped with a reason. */
  public Result map(List<Instance> instances, String app) {
    Map<String, Host> byId = new LinkedHashMap<>();
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < instances.size(); i++) {
      Instance inst = instances.get(i);
      String name = describe(inst, i);
      try {
        Host h = toHost(inst);
        Host earlier = byId.putIfAbsent(h.id(), h);
        if (earlier != null) {
          skipped.add("application " + app + " instance " + name + ": same address and port "
              + h.id() + " as an earlier instance; ignored");
        }
      } catch (IllegalArgumentException e) {
        skipped.add("application " + app + " instance " + name + ": " + e.getMessage());
      }
    }
    return new Result(List.copyOf(byId.values()), List.copyOf(skipped));
  }

  /** Eureka's JSON for one instance, as an {@link Instance}. */
  static Instance fromJson(Map<?, ?> inst) {
    Map<?, ?> metadata = inst.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    Map<String, String> meta = new LinkedHashMap<>();
    metadata.forEach((k, v) -> {
      String t = text(v);
      if (k != null && t != null) {
        meta.put(String.valueOf(k), t);
      }
    });
    Map<?, ?> dcInfo = inst.get("dataCenterInfo") instanceof Map<?, ?> m ? m : Map.of();
    Map<?, ?> awsMetadata = dcInfo.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    return new Instance(
        text(inst.get("instanceId")),
        text(inst.get("hostName")),
        text(inst.get("ipAddr")),
        portValue(inst.get("port")),
        portEnabled(inst.get("port")),
        portValue(inst.get("securePort")),
        portEnabled(inst.get("securePort")),
        meta,
        text(awsMetadata.get("availability-zone")),
        text(inst.get("status")));
  }

  /** The value of Eureka's {@code {"$":8102,"@enabled":"true"}} (or a bare value) as text. */
  private static String portValue(Object field) {
    return text(field instanceof Map<?, ?> m ? m.get("$") : field);
  }

  private static boolean portEnabled(Object field) {
    if (field instanceof Map<?, ?> m) {
      Object enabled = m.get("@enabled");
      return enabled == null || "true".equalsIgnoreCase(String.valueOf(enabled));
    }
    return true;
  }

  private Host toHost(Instance inst) {
    String hostName = inst.hostName();
    String ip = inst.ipAddr();
    if (hostName == null && ip == null) {
      throw new IllegalArgumentException("has neither hostName nor ipAddr");
    }
    Map<String, String> metadata = inst.metadata() == null ? Map.of() : inst.metadata();

    int port = settings.fixedPort();
    if (port <= 0) {
      port = metadataPort(metadata, settings.portKey());
    }
    if (port <= 0) {
      port = enabledPort(inst.port(), inst.portEnabled(), "port");
    }
    if (port <= 0) {
      throw new IllegalArgumentException(
          "no client port: the registered port is disabled or missing, no metadata \""
              + settings.portKey() + "\", and no fixed port was configured");
    }
    int securePort = metadataPort(metadata, settings.securePortKey());
    if (securePort <= 0) {
      securePort = enabledPort(inst.securePort(), inst.securePortEnabled(), "securePort");
    }
    int datastorePort = metadataPort(metadata, settings.datastorePortKey());

    String zone = blankToNull(inst.availabilityZone());
    String rack =
        firstNonBlank(text(metadata.get(settings.rackKey())), zone, settings.defaultRack());
    if (rack == null) {
      throw new IllegalArgumentException("no rack: no metadata \"" + settings.rackKey()
          + "\", no AWS availability-zone in dataCenterInfo, and no default rack configured");
    }
    String datacenter = firstNonBlank(
        text(metadata.get(settings.datacenterKey())), regionOf(zone), settings.defaultDatacenter());
    if (datacenter == null) {
      throw new IllegalArgumentException("no datacenter: no metadata \"" + settings.datacenterKey()
          + "\", no AWS availability-zone in dataCenterInfo, and no default datacenter configured");
    }
    Host.Status status = "UP".equals(inst.status()) ? Host.Status.UP : Host.Status.DOWN;

    return Host.builder(hostName != null ? hostName : ip, port)
        .ipAddress(ip)
        .securePort(securePort > 0 ? securePort : -1)
        .datastorePort(datastorePort > 0 ? datastorePort : -1)
        .rack(rack)
        .datacenter(datacenter)
        .status(status)
        .build();
  }

  /**
   * The AWS region of an availability zone by AWS's naming rule: the zone is the region plus one
   * letter ({@code us-east-1c} → {@code us-east-1}). Null when the zone does not look like that.
   */
  public static String regionOf(String zone) {
    if (zone == null || zone.length() < 3) {
      return null;
    }
    char last = zone.charAt(zone.length() - 1);
    char beforeLast = zone.charAt(zone.length() - 2);
    if (last >= 'a' && last <= 'z' && beforeLast >= '0' && beforeLast <= '9') {
      return zone.substring(0, zone.length() - 1);
    }
    return null;
  }

  /** A port from instance metadata, or -1 when the key is absent; an unusable value is an error. */
  private static int metadataPort(Map<String, String> metadata, String key) {
    if (key == null) {
      return -1;
    }
    String v = blankToNull(metadata.get(key));
    if (v == null) {
      return -1;
    }
    return parsePort(v, "metadata \"" + key + "\"");
  }

  /** A registered port; -1 when missing or disabled. */
  private static int enabledPort(String value, boolean enabled, String name) {
    String v = blankToNull(value);
    if (v == null || !enabled) {
      return -1;
    }
    return parsePort(v, "\"" + name + "\"");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static int parsePort(String v, String what) {
    try {
      int p = Integer.parseInt(v.trim());
      if (p >= 1 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(what + " is not a port (1..65535): '" + v + "'");
  }

  /** Strings as they are, numbers and booleans as text; blank and non-scalar values are absent. */
  private static String text(Object o) {
    if (o instanceof String s) {
      return s.isBlank() ? null : s;
    }
    if (o instanceof Number || o instanceof Boolean) {
      return String.valueOf(o);
    }
    return null;
  }

  private static String firstNonBlank(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v;
      }
    }
    return null;
  }

  private static String describe(Instance inst, int index) {
    String id = firstNonBlank(inst.instanceId(), inst.hostName(), inst.ipAddr());
    return id != null ? "'" + id + "'" : "#" + index;
  }
}
