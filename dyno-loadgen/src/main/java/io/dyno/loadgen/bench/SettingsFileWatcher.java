package io.dyno.loadgen.bench;

import com.netflix.archaius.api.Config;
import com.netflix.archaius.api.ConfigListener;
import com.netflix.archaius.config.PollingDynamicConfig;
import com.netflix.archaius.config.polling.FixedPollingStrategy;
import com.netflix.archaius.readers.URLConfigReader;
import java.net.MalformedURLException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Watches a properties file through Archaius 2 ({@link PollingDynamicConfig} polling the file's
 * URL) and applies runtime settings found in it to {@link Knobs}. Property names are the setting
 * names, optionally prefixed with {@code bench.} (e.g. {@code bench.readRate=5000}). A bad value is
 * reported on the progress sink and otherwise ignored: a typo must not stop a running bench.
 */
public final class SettingsFileWatcher implements AutoCloseable {
  private final PollingDynamicConfig config;
  private final Knobs knobs;
  private final Consumer<String> log;
  private volatile boolean closed;

  public SettingsFileWatcher(Path file, Duration pollEvery, Knobs knobs, Consumer<String> log) {
    this.knobs = knobs;
    this.log = log;
    try {
      this.config = new PollingDynamicConfig(
          new URLConfigReader(file.toUri().toURL()),
          new FixedPollingStrategy(pollEvery.toMillis(), TimeUnit.MILLISECONDS));
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("settings file " + file + ": not a valid path", e);
    }
    config.addListener(new ConfigListener() {
      @Override
      public void onConfigAdded(Config c) {
        apply();
      }

      @Override
      public void onConfigRemoved(Config c) {
        apply();
      }

      @Override
      public void onConfigUpdated(Config c) {
        apply();
      }

      @Override
      public void onError(Throwable error, Config c) {
        log.accept("settings file " + file + ": " + error);
      }
    });
    apply();
  }

  private synchronized void apply() {
    if (closed) return;
    for (Iterator<String> it = config.getKeys(); it.hasNext(); ) {
      String key = it.next();
      String name = key.startsWith("bench.") ? key.substring("bench.".length()) : key;
      if (!BenchConfig.RUNTIME_SETTINGS.contains(name)) {
        continue;
      }
      Object raw = config.getRawProperty(key);
      try {
        knobs.set(name, String.valueOf(raw));
      } catch (IllegalArgumentException e) {
        log.accept("settings file: ignored " + key + "=" + raw + ": " + e.getMessage());
      }
    }
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    config.shutdown();
  }
}
