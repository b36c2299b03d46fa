package io.dyno.core.exec;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A test-only RESP2 connection over a plain socket (dyno-core has no Redis driver). */
public final class RespConnection implements NodeConnection {
  /** An error reply ({@code -ERR …}, {@code -WRONGTYPE …}). */
  public static final class ErrorReply extends RuntimeException {
    public ErrorReply(String m) {
      super(m);
    }
  }

  /** Opens RespConnections; classifies like a real driver would. */
  public static final class Factory implements NodeConnectionFactory<RespConnection> {
    public final AtomicInteger opened = new AtomicInteger();
    public final AtomicInteger closed = new AtomicInteger();

    @Override
    public RespConnection open(Host host, Duration connectTimeout, Duration socketTimeout)
        throws IOException {
      RespConnection c = new RespConnection(host, connectTimeout, socketTimeout, closed);
      opened.incrementAndGet();
      return c;
    }

    @Override
    public FailureKind classify(Throwable t) {
      if (t instanceof SocketTimeoutException) return FailureKind.TIMEOUT;
      if (t instanceof IOException) return FailureKind.CONNECTION;
      if (t instanceof ErrorReply e) {
        return FailureKind.isDynomiteReplicaError(e.getMessage())
            ? FailureKind.REPLICA
            : FailureKind.DATA;
      }
      return FailureKind.CONNECTION;
    }
  }

  private final Host host;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final AtomicInteger closedCounter;
  private ConsistencyLevel consistency;
  private volatile boolean broken;
  private volatile boolean closed;

  public RespConnection(
      Host host, Duration connectTimeout, Duration socketTimeout, AtomicInteger closedCounter)
      throws IOException {
    this.host = host;
    this.closedCounter = closedCounter;
    socket = new Socket();
    try {
      socket.connect(
          new InetSocketAddress(host.address(), host.port()), (int) connectTimeout.toMillis());
      socket.setSoTimeout((int) socketTimeout.toMillis());
      socket.setTcpNoDelay(true);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    in = new BufferedInputStream(socket.getInputStream());
    out = new BufferedOutputStream(socket.getOutputStream());
  }

  /** Sends one command and reads its reply; error replies throw {@link ErrorReply}. */
  public Object command(String... args) throws IOException {
    try {
      StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
      for (String a : args) {
        byte[] b = a.getBytes(StandardCharsets.UTF_8);
        sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
      }
      out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return read();
    } catch (IOException e) {
      broken = true;
      throw e;
    }
  }

  private Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("connection closed by " + host.id());
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new ErrorReply(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int n = Integer.parseInt(line);
        if (n < 0) return null;
        byte[] b = in.readNBytes(n + 2);
        if (b.length < n + 2) throw new IOException("short read from " + host.id());
        return new String(b, 0, n, StandardCharsets.UTF_8);
      }
      case '*': {
        int n = Integer.parseInt(line);
        if (n < 0) return null;
        List<Object> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          try {
            l.add(read());
          } catch (ErrorReply e) {
            l.add(e);
          }
        }
        return l;
      }
      default:
        throw new IOException("protocol error from " + host.id() + ": type byte " + type);
    }
  }

  private String line() throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) != '\r') {
      if (c < 0) throw new IOException("connection closed by " + host.id());
      sb.append((char) c);
    }
    if (in.read() != '\n') throw new IOException("protocol error from " + host.id());
    return sb.toString();
  }

  @Override
  public Host host() {
    return host;
  }

  @Override
  public ConsistencyLevel consistency() {
    return consistency;
  }

  @Override
  public void setConsistency(ConsistencyLevel level) throws IOException {
    Object r = command("DYNO_CONFIG:CONN_CONSISTENCY", level.name());
    if (!"OK".equals(r)) throw new IOException("unexpected reply to consistency switch: " + r);
    consistency = level;
  }

  @Override
  public void ping() throws IOException {
    Object r = command("PING");
    if (!"PONG".equals(r)) throw new IOException("unexpected PING reply " + r);
  }

  @Override
  public void setReadTimeout(Duration timeout) throws IOException {
    socket.setSoTimeout(Math.toIntExact(timeout.toMillis()));
  }

  @Override
  public boolean isBroken() {
    return broken || closed;
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    closedCounter.incrementAndGet();
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
