package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;

/** The rules between {@link DynoConfig}'s settings, which no single row of {@link Setting} can check. */
final class SettingChecks {
  private SettingChecks() {}

  /** What one config's values look up by row. */
  interface Values {
    <T> T get(Setting<T> s);
  }

  /** The rules between settings, checked when a config is built: an exception names both. */
  static void checkTogether(Values v) {
    int min = v.get(Setting.MIN_CONNS);
    int max = v.get(Setting.MAX_CONNS);
    if (min > max) {
      throw new IllegalArgumentException(
          "minConnsPerHost (" + min + ") must not exceed maxConnsPerHost (" + max + ")");
    }
    ConsistencyLevel consistency = v.get(Setting.DEFAULT_CONSISTENCY);
    if (v.get(Setting.DATASTORE_MODE) && consistency != null) {
      throw new IllegalArgumentException("defaultConsistency (" + consistency
          + ") cannot be set with datastoreMode=true: datastore mode talks to Redis directly, which"
          + " has no Dynomite consistency");
    }
  }
}
