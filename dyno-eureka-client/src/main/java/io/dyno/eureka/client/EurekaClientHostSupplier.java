package io.dyno.eureka.client;

import com.netflix.appinfo.AmazonInfo;
import com.netflix.appinfo.DataCenterInfo;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.discovery.EurekaClient;
import com.netflix.discovery.shared.Application;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.eureka.EurekaException;
import io.dyno.eureka.EurekaHostSupplier;
import io.dyno.eureka.internal.InstanceMapper;
import io.dyno.eureka.internal.SkippedInstances;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes of a Dynomite cluster from the {@link EurekaClient} the application already runs (the
 * Netflix stack's {@code DiscoveryClient}), instead of a second reader of Eureka's REST API. Each
 * instance is mapped exactly as {@link EurekaHostSupplier} maps it (the same code, the same
 * options and defaults): ports from metadata or the registered ports, rack from metadata or the AWS
 * availability zone, and only {@code UP} counts as up (OUT_OF_SERVICE, DOWN, STARTING are down).
 *
 * <p>It reads the client's local copy of the registry, so it sees a change when the client's
 * next registry fetch does (30 s by default in eureka-client). Every status is listed, whatever
 * the client's {@code shouldFilterOnlyUpInstances}: a node that goes OUT_OF_SERVICE stays known, as
 * DOWN. An application the client does not know (not registered, or the registry not fetched yet)
 * is an error, not an empty list. The client is the application's: this supplier never shuts it down.
 *
 * <p>eureka-client is not a dependency of Dyno: this module compiles against it and the application
 * provides it. Thread-safe.
 */
public final class EurekaClientHostSupplier implements HostSupplier {
  private static final Logger log = LoggerFactory.getLogger(EurekaClientHostSupplier.class);

  private final EurekaClient client;
  private final String application;
  private final InstanceMapper mapper;
  private final SkippedInstances skippedLog = new SkippedInstances(log);

  private EurekaClientHostSupplier(Builder b) {
    this.client = b.client;
    this.application = b.application.toUpperCase(Locale.ROOT);
    this.mapper = new InstanceMapper(new InstanceMapper.Settings(
        b.port,
        b.portKey,
        b.securePortKey,
        b.datastorePortKey,
        b.rackKey,
        b.datacenterKey,
        b.defaultRack,
        b.defaultDatacenter));
  }

  /** A supplier over {@code client}; name the application with {@link Builder#application}. */
  public static Builder builder(EurekaClient client) {
    return new Builder(client);
  }

  public String application() {
    return application;
  }

  @Override
  public List<Host> getHosts() {
    Application app = client.getApplication(application);
    List<InstanceInfo> infos = app == null ? List.of() : app.getInstancesAsIsFromEureka();
    if (infos.isEmpty()) {
      throw new EurekaException(
          "Eureka application " + application + " has no instance in the EurekaClient's"
              + " registry (not registered, or the client has not fetched the registry yet)",
          true,
          null);
    }
    List<InstanceMapper.Instance> instances = new ArrayList<>(infos.size());
    for (InstanceInfo i : infos) {
      instances.add(view(i));
    }
    InstanceMapper.Result result = mapper.map(instances, application);
    skippedLog.report(result.skipped());
    if (result.hosts().isEmpty()) {
      throw new EurekaException(
          "Eureka application " + application + ": no usable instance: " + result.skipped(),
          false,
          null);
    }
    return result.hosts();
  }

  /** The neutral view of an instance, field for field what Eureka's REST JSON carries. */
  static InstanceMapper.Instance view(InstanceInfo i) {
    String zone = null;
    DataCenterInfo dc = i.getDataCenterInfo();
    if (dc instanceof AmazonInfo aws) {
      zone = aws.get(AmazonInfo.MetaDataKey.availabilityZone);
    }
    Map<String, String> metadata = i.getMetadata() == null ? Map.of() : i.getMetadata();
    return new InstanceMapper.Instance(
        i.getInstanceId(),
        i.getHostName(),
        i.getIPAddr(),
        i.getPort() > 0 ? Integer.toString(i.getPort()) : null,
        i.isPortEnabled(InstanceInfo.PortType.UNSECURE),
        i.getSecurePort() > 0 ? Integer.toString(i.getSecurePort()) : null,
        i.isPortEnabled(InstanceInfo.PortType.SECURE),
        metadata,
        zone,
        i.getStatus() == null ? null : i.getStatus().name());
  }

  @Override
  public String toString() {
    return "EurekaClientHostSupplier{" + application + "}";
  }

  /** The mapping options of {@link EurekaHostSupplier.Builder}, with the same defaults. */
  public static final class Builder {
    private final EurekaClient client;
    private String application;
    private int port = -1;
    private String portKey = EurekaHostSupplier.DEFAULT_PORT_KEY;
    private String securePortKey = EurekaHostSupplier.DEFAULT_SECURE_PORT_KEY;
    private String datastorePortKey = EurekaHostSupplier.DEFAULT_DATASTORE_PORT_KEY;
    private String rackKey = EurekaHostSupplier.DEFAULT_RACK_KEY;
    private String datacenterKey = EurekaHostSupplier.DEFAULT_DATACENTER_KEY;
    private String defaultRack;
    private String defaultDatacenter;

    private Builder(EurekaClient client) {
      this.client = Objects.requireNonNull(client, "eurekaClient");
    }

    /** The Eureka application name of the Dynomite nodes (case ignored). Required. */
    public Builder application(String name) {
      this.application = name;
      return this;
    }

    /** A client port for every instance, whatever Eureka says (e.g. 8102). */
    public Builder port(int clientPort) {
      if (clientPort < 1 || clientPort > 65535) {
        throw new IllegalArgumentException("eureka port must be 1..65535, was " + clientPort);
      }
      this.port = clientPort;
      return this;
    }

    /** Metadata key holding the client port (default {@value EurekaHostSupplier#DEFAULT_PORT_KEY}; null: none). */
    public Builder portMetadataKey(String key) {
      this.portKey = key;
      return this;
    }
    /** Metadata key holding the TLS client port (default {@value EurekaHostSupplier#DEFAULT_SECURE_PORT_KEY}). */
    public Builder securePortMetadataKey(String key) {
      this.securePortKey = key;
      return this;
    }
    /** Metadata key holding the datastore port (default {@value EurekaHostSupplier#DEFAULT_DATASTORE_PORT_KEY}). */
    public Builder datastorePortMetadataKey(String key) {
      this.datastorePortKey = key;
      return this;
    }
    /** Metadata key holding the rack; wins over the AWS zone (default {@value EurekaHostSupplier#DEFAULT_RACK_KEY}). */
    public Builder rackMetadataKey(String key) {
      this.rackKey = key;
      return this;
    }
    /** Metadata key holding the datacenter (default {@value EurekaHostSupplier#DEFAULT_DATACENTER_KEY}). */
    public Builder datacenterMetadataKey(String key) {
      this.datacenterKey = key;
      return this;
    }
    /** The rack of instances that give none (neither metadata nor AWS zone); default: such instances are left out. */
    public Builder defaultRack(String rack) {
      this.defaultRack = rack;
      return this;
    }
    /** The datacenter of instances that give none; default: left out. */
    public Builder defaultDatacenter(String dc) {
      this.defaultDatacenter = dc;
      return this;
    }

    public EurekaClientHostSupplier build() {
      if (application == null || application.isBlank()) {
        throw new IllegalArgumentException("EurekaClientHostSupplier: application is required");
      }
      return new EurekaClientHostSupplier(this);
    }
  }
}
