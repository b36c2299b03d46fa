package io.dyno.core;

import java.util.Objects;

/**
 * One Dynomite node, as an immutable value. Its identity is its address <em>and</em> client port:
 * two Dynomite processes on one machine are two nodes. The password is never printed.
 */
public final class Host {
  /** Whether a host source reports the node as serving. */
  public enum Status {
    /** Reported serving: the node gets traffic unless node health takes it out of rotation. */
    UP,
    /** Reported not serving: no traffic is sent to it. */
    DOWN
  }

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

  /**
   * Starts building a node; rack and datacenter must be set before {@link Builder#build()}.
   *
   * @param hostname the node's name (a DNS name or an address); not empty
   * @param port the client (RESP) port, 1..65535 (Dynomite's default: {@link #DEFAULT_PORT})
   * @return a new builder, status {@code UP}
   */
  public static Builder builder(String hostname, int port) {
    return new Builder(hostname, port);
  }

  /** {@return the name the node was given} May be a DNS name; resolved only when connecting. */
  public String hostname() {
    return hostname;
  }
  /** {@return the IP address, or null when only a hostname is known} */
  public String ipAddress() {
    return ipAddress;
  }
  /** {@return what clients connect to: the IP address when known, otherwise the hostname} */
  public String address() {
    return ipAddress != null ? ipAddress : hostname;
  }
  /** {@return the client (RESP) port} */
  public int port() {
    return port;
  }
  /** {@return the TLS client port, or -1 when none} */
  public int securePort() {
    return securePort;
  }
  /** {@return the port of the node's own datastore (Redis), or -1 when unknown} Used in datastore mode. */
  public int datastorePort() {
    return datastorePort;
  }
  /** {@return the rack (availability zone); never null} */
  public String rack() {
    return rack;
  }
  /** {@return the datacenter (region); never null} */
  public String datacenter() {
    return datacenter;
  }
  /** {@return whether the host source reports the node as serving} */
  public Status status() {
    return status;
  }
  /**
   * {@return whether the status is {@link Status#UP}} Node health (taken out of rotation after
   * failures) is not part of it.
   */
  public boolean isUp() {
    return status == Status.UP;
  }
  /** {@return the node's password, or null} Never part of {@link #toString()}. */
  public String password() {
    return password;
  }

  /** {@return {@code address:port}, the node's identity as text} */
  public String id() {
    return address() + ":" + port;
  }

  /** {@return a new builder holding every field of this node} This node is not changed. */
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

  /**
   * A copy of this node with another status.
   *
   * @param newStatus the status; not null
   * @return a new {@code Host}, equal to this one (status is not part of the identity)
   */
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

    /**
     * Sets the IP address, used instead of the hostname to connect.
     *
     * @param ip the address, or null for none
     * @return this builder
     */
    public Builder ipAddress(String ip) {
      this.ipAddress = ip;
      return this;
    }
    /**
     * Sets the TLS client port (a TLS terminator in front of Dynomite).
     *
     * @param p 1..65535, or -1 for none (the default)
     * @return this builder
     */
    public Builder securePort(int p) {
      this.securePort = p;
      return this;
    }
    /**
     * Sets the node's Redis port, for datastore mode.
     *
     * @param p 1..65535, or -1 for unknown (the default)
     * @return this builder
     */
    public Builder datastorePort(int p) {
      this.datastorePort = p;
      return this;
    }
    /**
     * Sets the rack (availability zone). Required.
     *
     * @param r the rack's name; not blank
     * @return this builder
     */
    public Builder rack(String r) {
      this.rack = r;
      return this;
    }
    /**
     * Sets the datacenter (region). Required: it is never guessed from the rack.
     *
     * @param dc the datacenter's name; not blank
     * @return this builder
     */
    public Builder datacenter(String dc) {
      this.datacenter = dc;
      return this;
    }
    /**
     * Sets the status. Default {@link Status#UP}.
     *
     * @param s the status; not null
     * @return this builder
     */
    public Builder status(Status s) {
      this.status = Objects.requireNonNull(s, "status");
      return this;
    }
    /**
     * Sets the node's password (sent as AUTH in datastore mode only).
     *
     * @param pw the password, or null for none
     * @return this builder
     */
    public Builder password(String pw) {
      this.password = pw;
      return this;
    }

    /**
     * {@return the node}
     *
     * @throws IllegalArgumentException naming the host and the field when the hostname is empty, a port
     *     is out of 1..65535, or the rack or datacenter is blank
     */
    public Host build() {
      if (hostname == null || hostname.isBlank()) {
        throw new IllegalArgumentException("host: hostname must not be empty");
      }
      checkPort("port", port);
      if (securePort != -1) checkPort("securePort", securePort);
      if (datastorePort != -1) checkPort("datastorePort", datastorePort);
      if (rack == null || rack.isBlank()) {
        throw new IllegalArgumentException(
            "host " + hostname + ":" + port + ": rack must not be empty");
      }
      if (datacenter == null || datacenter.isBlank()) {
        throw new IllegalArgumentException(
            "host " + hostname + ":" + port + ": datacenter must not be empty");
      }
      return new Host(this);
    }

    private void checkPort(String name, int p) {
      if (p < 1 || p > 65535) {
        throw new IllegalArgumentException(
            "host " + hostname + ": " + name + " must be 1..65535, was " + p);
      }
    }
  }
}
