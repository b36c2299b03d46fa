package io.dyno.jedis;

/**
 * Compressed-value formats the client can decode on reads ({@link DynoJedisClientBuilder#readCompressed}).
 * A value in no format that was asked for is returned exactly as stored.
 */
public enum CompressedFormat {
  /** Dyno's own ({@code 0xFE 'D' 'Z' 0x01}, length, DEFLATE); always read while compressing. */
  DYNO,
  /**
   * Netflix Dyno's: strings stored as Base64(GZIP(Base64(UTF-8))), and the raw GZIP its pipelines
   * wrote for binary hash values. For reading data written by Netflix Dyno during a migration;
   * such values are never written. A stored value that happens to look like one is decoded too.
   */
  NETFLIX_DYNO
}
