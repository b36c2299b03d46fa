package io.dyno.jedis.internal.mux;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Incremental RESP2 reply decoder. Each complete top-level reply goes to the {@link Sink} as the raw
 * object Jedis's {@code Protocol.read} yields, so Jedis builders accept it: simple and bulk strings
 * → {@code byte[]}, integers → {@code Long}, arrays → {@code List<Object>} (nested), null bulk or
 * array → {@code null}. An error reply is a {@link JedisDataException} <em>value</em> (the subclasses
 * Jedis picks for BUSY, NOSCRIPT, NOAUTH/WRONGPASS/NOPERM), never thrown: a data error is the
 * caller's business and the connection stays in step.
 *
 * <p>State survives across reads (a stack of open arrays, a partly read bulk string), so a large
 * reply is never re-parsed and a bulk body is copied straight out of each read rather than
 * accumulated. Input that is not RESP, or that breaks the bounds (bulk length, array depth, line
 * length), throws {@link RespProtocolException}; the owner closes the connection, since the stream
 * can no longer be trusted.
 */
final class RespDecoder extends ByteToMessageDecoder {
  /** Receives each complete top-level reply, on the event loop. */
  interface Sink {
    void reply(Object raw);

    /**
     * Whether a reply is owed (a request is outstanding). Bytes that start a reply when none is owed
     * are a protocol error: kept, a partial one would be read as the start of the next request's reply.
     */
    default boolean expecting() {
      return true;
    }
  }

  static final int MAX_DEPTH = 64;
  /** Longest status, error or length line: Redis never sends a longer one. */
  static final int MAX_LINE = 64 * 1024;

  private final Sink sink;
  private final int maxBulk;

  // Open arrays, innermost last.
  private final List<?>[] stack = new List<?>[MAX_DEPTH];
  private final int[] remaining = new int[MAX_DEPTH];
  private int depth;

  // A bulk string being read: its bytes so far, or null when none.
  private byte[] bulk;
  private int bulkFilled;

  private boolean failed;

  RespDecoder(Sink sink, int maxBulk) {
    this.sink = sink;
    this.maxBulk = maxBulk;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    try {
      decodeAvailable(in);
    } catch (RespProtocolException e) {
      failed = true;
      in.skipBytes(in.readableBytes());
      throw e;
    }
  }

  /**
   * Decodes the complete replies {@code in} holds, outside a channel (the caller-owned socket);
   * what is left of a partial reply stays in {@code in} or in this decoder's state. Throws
   * {@link RespProtocolException}.
   */
  void feed(ByteBuf in) {
    decodeAvailable(in);
  }

  private void decodeAvailable(ByteBuf in) {
    while (true) {
      Object value;
      if (bulk == null && depth == 0 && in.isReadable() && !sink.expecting()) {
        throw new RespProtocolException("bytes with no request outstanding ('"
            + in.toString(
                in.readerIndex(), Math.min(in.readableBytes(), 32), StandardCharsets.US_ASCII)
            + "')");
      }
      if (bulk != null) {
        int want = bulk.length - bulkFilled;
        int n = Math.min(want, in.readableBytes());
        in.readBytes(bulk, bulkFilled, n);
        bulkFilled += n;
        if (bulkFilled < bulk.length || in.readableBytes() < 2) {
          return;
        }
        if (in.readByte() != '\r' || in.readByte() != '\n') {
          throw new RespProtocolException(
              "bulk string of " + bulk.length + " bytes not followed by CRLF");
        }
        value = bulk;
        bulk = null;
      } else {
        int start = in.readerIndex();
        int lf = in.indexOf(start, in.writerIndex(), (byte) '\n');
        if (lf < 0) {
          if (in.readableBytes() > MAX_LINE) {
            throw new RespProtocolException("a reply line longer than " + MAX_LINE + " bytes");
          }
          return;
        }
        if (lf == start || in.getByte(lf - 1) != '\r') {
          throw new RespProtocolException("a reply line not ended by CRLF");
        }
        byte type = in.getByte(start);
        int from = start + 1;
        int to = lf - 1; // exclusive: the CR
        in.readerIndex(lf + 1);
        switch (type) {
          case '+' -> value = bytes(in, from, to);
          case '-' -> value = error(new String(bytes(in, from, to), StandardCharsets.UTF_8));
          case ':' -> value = parseLong(in, from, to);
          case '$' -> {
            long len = parseLong(in, from, to);
            if (len == -1) {
              value = null;
            } else if (len < 0 || len > maxBulk) {
              throw new RespProtocolException(
                  "bulk string length " + len + " (limit " + maxBulk + " bytes)");
            } else {
              bulk = new byte[(int) len];
              bulkFilled = 0;
              continue;
            }
          }
          case '*' -> {
            long n = parseLong(in, from, to);
            if (n == -1) {
              value = null;
            } else if (n < 0 || n > Integer.MAX_VALUE - 8) {
              throw new RespProtocolException("array length " + n);
            } else if (n == 0) {
              value = new ArrayList<>(0);
            } else {
              if (depth == MAX_DEPTH) {
                throw new RespProtocolException("arrays nested deeper than " + MAX_DEPTH);
              }
              // Sized by what is announced only up to a point: a hostile length must not allocate.
              stack[depth] = new ArrayList<>((int) Math.min(n, 1024));
              remaining[depth] = (int) n;
              depth++;
              continue;
            }
          }
          default ->
            throw new RespProtocolException(
                "unknown reply type byte 0x" + Integer.toHexString(type & 0xff));
        }
      }
      complete(value);
    }
  }

  /** Adds a finished value to the open array, closing every array it completes; a top-level value goes out. */
  @SuppressWarnings("unchecked")
  private void complete(Object value) {
    while (depth > 0) {
      List<Object> top = (List<Object>) stack[depth - 1];
      top.add(value);
      if (--remaining[depth - 1] > 0) {
        return;
      }
      stack[--depth] = null;
      value = top;
    }
    sink.reply(value);
  }

  private static byte[] bytes(ByteBuf in, int from, int to) {
    byte[] b = new byte[to - from];
    in.getBytes(from, b);
    return b;
  }

  private static long parseLong(ByteBuf in, int from, int to) {
    if (from >= to || to - from > 20) {
      throw new RespProtocolException(
          "not an integer: '" + in.toString(from, to - from, StandardCharsets.US_ASCII) + "'");
    }
    boolean negative = in.getByte(from) == '-';
    int i = negative ? from + 1 : from;
    if (i == to) {
      throw new RespProtocolException("not an integer: '-'");
    }
    long v = 0;
    for (; i < to; i++) {
      int d = in.getByte(i) - '0';
      if (d < 0 || d > 9) {
        throw new RespProtocolException(
            "not an integer: '" + in.toString(from, to - from, StandardCharsets.US_ASCII) + "'");
      }
      // Accumulate negatively so Long.MIN_VALUE parses; overflow is malformed.
      if (v < (Long.MIN_VALUE + d) / 10) {
        throw new RespProtocolException("integer out of range: '"
            + in.toString(from, to - from, StandardCharsets.US_ASCII) + "'");
      }
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == Long.MIN_VALUE) {
        throw new RespProtocolException("integer out of range");
      }
      v = -v;
    }
    return v;
  }

  /** The exception object Jedis would have thrown for this error line (it is returned, not thrown). */
  static JedisDataException error(String message) {
    if (message.startsWith("BUSY ")) {
      return new JedisBusyException(message);
    }
    if (message.startsWith("NOSCRIPT ")) {
      return new JedisNoScriptException(message);
    }
    if (message.startsWith("NOAUTH")
        || message.startsWith("WRONGPASS")
        || message.startsWith("NOPERM")) {
      return new JedisAccessControlException(message);
    }
    if (message.isBlank()) {
      return new JedisDataException(DynomiteWire.BLANK_ERROR_REPLY);
    }
    return new JedisDataException(message);
  }

  /** The reply stream is not valid RESP: the connection must close. */
  static final class RespProtocolException extends RuntimeException {
    RespProtocolException(String message) {
      super(message);
    }
  }
}
