package io.dyno.recipes.lock;

/** The Lua scripts run on each voter. KEYS[1] = lock key, KEYS[2] = fence counter key. */
final class Scripts {
  private Scripts() {}

  /** Grant if free: set the owner with a TTL and bump the fence counter; 0 when held by someone else. */
  static final String ACQUIRE = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
      + "  return redis.call('incr', KEYS[2])\n"
      + "end\n"
      + "return 0";

  /**
   * Second round of an acquisition: while still the owner, raise the fence counter to the token
   * chosen (the max over the grants), so any later majority meets a counter at least that high.
   */
  static final String RAISE_FENCE = "if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end\n"
      + "local c = tonumber(redis.call('get', KEYS[2]) or '0')\n"
      + "if c < tonumber(ARGV[2]) then redis.call('set', KEYS[2], ARGV[2]) end\n"
      + "return 1";

  /** Extend the TTL, only for the owner. */
  static final String EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then\n"
      + "  return redis.call('pexpire', KEYS[1], ARGV[2])\n"
      + "end\n"
      + "return 0";

  /** Delete, only for the owner. */
  static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then\n"
      + "  return redis.call('del', KEYS[1])\n"
      + "end\n"
      + "return 0";
}
