package io.dyno.jedis.internal;

import java.io.InputStream;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.RedisInputStream;

/**
 * The reply stream a pooled connection's replies are read through: Jedis's own parser, with the
 * number lines of a reply (lengths and integers) parsed strictly. Jedis turns any bytes before
 * CRLF into a number and then allocates what it announces: a junk length line such as
 * {@code $\xc6\xf2...1} became a 1.5 GB array (seconds of zeroing, or an OutOfMemoryError in the
 * application). Here a number line holds an optional minus and at most 19 digits, a length is -1
 * or within a bound (bulk strings: Redis's own 512 MiB; arrays and maps: {@link #MAX_AGGREGATE},
 * because Jedis sizes its list by the announced count), and anything else is a
 * {@link JedisConnectionException}: the connection counts as broken and is discarded, never
 * reused.
 *
 * <p>Wraps the connection's own stream (it buffers in front of it), so everything read from a
 * connection must go through this one instance: {@link CheckedConnection} does so.
 */
final class StrictReplyStream extends RedisInputStream {
  /** Redis's default {@code proto-max-bulk-len}. */
  static final int MAX_BULK = 512 << 20;
  /** Elements of one array, set or map reply (Jedis allocates a list of this size up front). */
  static final int MAX_AGGREGATE = 1 << 26;

  private final InputStream source;
  // The reply type byte read last: Jedis reads it, then the number line that belongs to it.
  private byte type;

  StrictReplyStream(InputStream source) {
    super(source);
    this.source = source;
  }

  /** The stream this one reads from (the connection's own). */
  InputStream source() {
    return source;
  }

  @Override
  public byte readByte() {
    byte b = super.readByte();
    type = b;
    return b;
  }

  @Override
  public int readIntCrLf() {
    long n = readNumberLine();
    long max = switch (type) {
      case '$', '=', '!' -> MAX_BULK; // bulk, verbatim, bulk error
      case '*', '~', '>', '%', '|' -> MAX_AGGREGATE; // array, set, push, map, attribute
      default -> Integer.MAX_VALUE;
    };
    if (n < -1 || n > max) {
      throw new JedisConnectionException("protocol error: reply of type '" + (char) type
          + "' announces length " + n + " (allowed -1 to " + max + "); the connection is dropped");
    }
    return (int) n;
  }

  @Override
  public long readLongCrLf() {
    return readNumberLine();
  }

  private long readNumberLine() {
    byte b = super.readByte();
    boolean negative = b == '-';
    if (negative) {
      b = super.readByte();
    }
    long value = 0;
    int digits = 0;
    while (b >= '0' && b <= '9') {
      if (++digits > 19) {
        throw malformed("more than 19 digits");
      }
      value = value * 10 + (b - '0');
      if (value < 0) {
        throw malformed("a number beyond 64 bits");
      }
      b = super.readByte();
    }
    if (digits == 0) {
      throw malformed("byte 0x" + Integer.toHexString(b & 0xff) + " where a digit was expected");
    }
    if (b != '\r' || super.readByte() != '\n') {
      throw malformed(
          "byte 0x" + Integer.toHexString(b & 0xff) + " after " + digits + " digits, before CRLF");
    }
    return negative ? -value : value;
  }

  private JedisConnectionException malformed(String what) {
    return new JedisConnectionException("protocol error: malformed number in a reply of type '"
        + (char) type + "': " + what + "; the connection is dropped");
  }
}
