package io.dyno.core;

import java.util.Objects;

/**
 * One Dynomite node, as an immutable value. Its identity is its address <em>and</em> client port:
 * two Dynomite processes on one machine are two nodes. The password is never printed.
 */
public final class Host {
  /** Whether a host source reports the node as serving. */
  public enum Status { UP, DOWN }

  /** Dynomite's default client (RESP) port. */
  public static final int DEFAULT_PORT = 8102;

  private final String hostname;
  private final String ipAddress;
  private final int port;
  private final int securePort;
  private final int datastorePort;
  private final String rack;
  private final String datacenter;
  private final Status status;
  private final String password;

  private Host(Builder b) {
    this.hostname = b.hostname;
    this.ipAddress = b.ipAddress;
    this.port = b.port;
    this.securePort = b.securePort;
    this.datastorePort = b.datastorePort;
    this.rack = b.rack;
    this.datacenter = b.datacenter;
    this.status = b.status;
    this.password = b.password;
  }

  public static Builder builder(String hostname, int port) {
    return new Builder(hostname, port);
  }

  /** The name the node was given (may be a DNS name). */
  public String hostname() { return hostname; }
  /** The IP address, or null when only a hostname is known. */
  public String ipAddress() { return ipAddress; }
  /** What clients connect to: the IP address when known, otherwise the hostname. */
  public String address() { return ipAddress != null ? ipAddress : hostname; }
  /** The client (RESP) port. */
  public int port() { return port; }
  /** The TLS client port, or -1 when none. */
  public int securePort() { return securePort; }
  /** The port of the node's own datastore (Redis), used in datastore mode; -1 when unknown. */
  public int datastorePort() { return datastorePort; }
  /** The rack (availability zone). */
  public String rack() { return rack; }
  public String datacenter() { return datacenter; }
  public Status status() { return status; }
  public boolean isUp() { return status == Status.UP; }
  /** The password for the node, or null. Never part of {@link #toString()}. */
  public String password() { return password; }

  /** {@code address:port}, the node's identity as text. */
  public String id() { return address() + ":" + port; }

  public Builder toBuilder() {
    Builder b = new Builder(hostname, port);
    b.ipAddress = ipAddress;
    b.securePort = securePort;
    b.datastorePort = datastorePort;
    b.rack = rack;
    b.datacenter = datacenter;
    b.status = status;
    b.password = password;
    return b;
  }

  public Host withStatus(Status newStatus) {
    return toBuilder().status(newStatus).build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Host h && port == h.port && address().equals(h.address());
  }

  @Override
  public int hashCode() {
    return address().hashCode() * 31 + port;
  }

  @Override
  public String toString() {
    return id() + "(" + datacenter + "/" + rack + (status == Status.UP ? "" : ", " + status)
        + (password != null ? ", password=***" : "") + ")";
  }

  /** Builds a {@link Host}; rack and datacenter are required. */
  public static final class Builder {
    private final String hostname;
    private final int port;
    private String ipAddress;
    private int securePort = -1;
    private int datastorePort = -1;
    private String rack;
    private String datacenter;
    private Status status = Status.UP;
    private String password;

    private Builder(String hostname, int port) {
      this.hostname = hostname;
      this.port = port;
    }

    public Builder ipAddress(String ip) { this.ipAddress = ip; return this; }
    public Builder securePort(int p) { this.securePort = p; return this; }
    public Builder datastorePort(int p) { this.datastorePort = p; return this; }
    public Builder rack(String r) { this.rack = r; return this; }
    public Builder datacenter(String dc) { this.datacenter = dc; return this; }
    public Builder status(Status s) { this.status = Objects.requireNonNull(s, "status"); return this; }
    public Builder password(String pw) { this.password = pw; return this; }

    public Host build() {
      if (hostname == null || hostname.isBlank()) {
        throw new IllegalArgumentException("host: hostname must not be empty");
      }
      checkPort("port", port);
      if (securePort != -1) checkPort("securePort", securePort);
      if (datastorePort != -1) checkPort("datastorePort", datastorePort);
      if (rack == null || rack.isBlank()) {
        throw new IllegalArgumentException("host " + hostname + ":" + port + ": rack must not be empty");
      }
      if (datacenter == null || datacenter.isBlank()) {
        throw new IllegalArgumentException("host " + hostname + ":" + port + ": datacenter must not be empty");
      }
      return new Host(this);
    }

    private void checkPort(String name, int p) {
      if (p < 1 || p > 65535) {
        throw new IllegalArgumentException("host " + hostname + ": " + name + " must be 1..65535, was " + p);
      }
    }
  }
}
