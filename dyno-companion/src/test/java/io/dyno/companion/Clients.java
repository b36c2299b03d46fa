package io.dyno.companion;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;

/** Test clients: plain Jedis (no CLIENT SETINFO), a raw socket for byte-exact checks, HTTP, polling. */
final class Clients {
  private Clients() {}

  static Jedis jedis(int port) {
    return jedis(port, 2000);
  }

  static Jedis jedis(int port, int timeoutMillis) {
    return new Jedis(
        "127.0.0.1",
        port,
        DefaultJedisClientConfig.builder()
            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
            .autoNegotiateProtocol(false)
            .socketTimeoutMillis(timeoutMillis)
            .connectionTimeoutMillis(timeoutMillis)
            .build());
  }

  static Jedis jedis(CompanionNode n) {
    return jedis(n.clientPort());
  }

  static String http(String url) {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(url))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException(url + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Polls until the condition holds, failing after the bound. */
  static void await(String what, Duration bound, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + bound + " waiting for " + what);
      }
      Thread.onSpinWait();
      try {
        Thread.sleep(2); // polling interval, not synchronisation: the condition decides
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** A raw RESP connection: write bytes, read what arrives, see whether the server closed. */
  static final class Raw implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;

    Raw(int port) throws IOException {
      socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      socket.setTcpNoDelay(true);
      in = socket.getInputStream();
    }

    Raw send(String resp) throws IOException {
      socket.getOutputStream().write(resp.getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      return this;
    }

    static String cmd(String... args) {
      StringBuilder sb = new StringBuilder("*" + args.length + "\r\n");
      for (String a : args) {
        sb.append('$')
            .append(a.getBytes(StandardCharsets.UTF_8).length)
            .append("\r\n")
            .append(a)
            .append("\r\n");
      }
      return sb.toString();
    }

    /** Reads exactly n bytes (or fails on timeout / EOF). */
    String read(int n, int timeoutMillis) throws IOException {
      socket.setSoTimeout(timeoutMillis);
      byte[] b = in.readNBytes(n);
      return new String(b, StandardCharsets.UTF_8);
    }

    /** Everything until the server closes, or null if it is still open after the timeout. */
    String readUntilClosed(int timeoutMillis) throws IOException {
      socket.setSoTimeout(timeoutMillis);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      try {
        int n;
        while ((n = in.read(buf)) >= 0) {
          out.write(buf, 0, n);
        }
        return out.toString(StandardCharsets.UTF_8);
      } catch (SocketTimeoutException e) {
        return null;
      } catch (IOException e) { // connection reset counts as closed
        return out.toString(StandardCharsets.UTF_8);
      }
    }

    /** What arrives within the timeout, without waiting for close. */
    String readAvailable(int timeoutMillis) throws IOException {
      socket.setSoTimeout(timeoutMillis);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[4096];
      try {
        int n;
        while ((n = in.read(buf)) > 0) {
          out.write(buf, 0, n);
        }
      } catch (SocketTimeoutException e) {
        // nothing more within the timeout
      }
      return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
