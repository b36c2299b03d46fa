package io.dyno.loadgen.bench;

import java.util.function.LongSupplier;

/**
 * The CPU the servers and the client process spend in the measured part of a run, per operation:
 * read as it begins, and at any moment after (the final figures once it ends).
 */
final class RunCpu {
  private final LongSupplier operations;
  private volatile ServerCpu serverCpu;
  private volatile String noServerCpuReason =
      "this target does not say which server processes it runs";
  private volatile ClientCpu clientCpu = new ClientCpu(null);
  private volatile ServerCpu.Reading serverBefore;
  private volatile ClientCpu.Reading clientBefore;
  private volatile ServerCpu.Use serverFinal;
  private volatile ClientCpu.Use clientFinal;

  /** {@code operations}: the operations completed so far, what the CPU is divided by. */
  RunCpu(LongSupplier operations) {
    this.operations = operations;
  }

  /** The target's server processes, or (when null) why their CPU is not measured. */
  void serverCpu(ServerCpu cpu, String reasonWhenNone) {
    this.serverCpu = cpu;
    this.noServerCpuReason = reasonWhenNone;
  }

  void clientCpu(ClientCpu cpu) {
    this.clientCpu = cpu;
  }

  /** Read last before the load starts (the server counters' snapshot talks to the servers too). */
  void begin() {
    serverBefore = serverCpu == null ? null : serverCpu.read();
    clientBefore = clientCpu.read();
  }

  /** Readings taken as the load stopped, before anything else polls the servers. */
  record Readings(ServerCpu.Reading server, ClientCpu.Reading client) {}

  Readings read() {
    return new Readings(serverCpu == null ? null : serverCpu.read(), clientCpu.read());
  }

  /** Fixes the final figures from readings taken at the end. */
  void end(Readings atEnd) {
    serverFinal = serverUse(atEnd.server());
    clientFinal = clientUse(atEnd.client());
  }

  /** The server CPU so far (the final figure once {@link #end} was called). */
  ServerCpu.Use server() {
    ServerCpu.Use done = serverFinal;
    if (done != null) return done;
    return serverUse(serverCpu == null || serverBefore == null ? null : serverCpu.read());
  }

  /** The client CPU so far (the final figure once {@link #end} was called). */
  ClientCpu.Use client() {
    ClientCpu.Use done = clientFinal;
    return done != null ? done : clientUse(clientCpu.read());
  }

  private ServerCpu.Use serverUse(ServerCpu.Reading now) {
    if (serverCpu == null) return ServerCpu.Use.na(noServerCpuReason);
    if (serverBefore == null || now == null) {
      return ServerCpu.Use.na("the measured part has not started");
    }
    return ServerCpu.between(serverBefore, now, operations.getAsLong());
  }

  private ClientCpu.Use clientUse(ClientCpu.Reading now) {
    ClientCpu.Reading before = clientBefore;
    if (before == null) return ClientCpu.Use.na("the measured part has not started");
    return ClientCpu.between(before, now, operations.getAsLong());
  }
}
