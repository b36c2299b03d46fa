package io.dyno.loadgen.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A console's registration with a coordinator: repeated every 2 s (so a restarted coordinator
 * learns of it again), and, as the console closes, its final status pushed once.
 */
final class CoordinatorRegistration implements AutoCloseable {
  private final HttpClient http;
  private final URI registerUri;
  private final ScheduledExecutorService registrar;

  /** Starts registering {@code name} (whose console is at {@code url}) with the coordinator at {@code coordinatorUrl}. */
  CoordinatorRegistration(HttpClient http, String coordinatorUrl, String name, String url) {
    this.http = http;
    String base = coordinatorUrl.endsWith("/")
        ? coordinatorUrl.substring(0, coordinatorUrl.length() - 1)
        : coordinatorUrl;
    this.registerUri = URI.create(
        base + "/register?name=" + HttpExchanges.enc(name) + "&url=" + HttpExchanges.enc(url));
    this.registrar =
        Executors.newSingleThreadScheduledExecutor(ControlServer.daemon("bench-register"));
    registrar.scheduleWithFixedDelay(this::registerOnce, 0, 2, TimeUnit.SECONDS);
  }

  private void registerOnce() {
    try {
      http.send(
          HttpRequest.newBuilder(registerUri)
              .timeout(Duration.ofSeconds(2))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // the coordinator is not up (yet): the next attempt follows in 2 s
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Tells the coordinator an instance's final figures ({@code statusJson}), so its sum after a stop
   * is the instances' final totals, not the last poll before they went away.
   */
  void pushFinalStatus(String statusJson) {
    String body = "final=" + HttpExchanges.enc(statusJson);
    try {
      http.send(
          HttpRequest.newBuilder(registerUri)
              .timeout(Duration.ofSeconds(2))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // the coordinator is gone: nothing to tell
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops registering. */
  @Override
  public void close() {
    registrar.shutdownNow();
  }
}
