package io.dyno.companion.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * RESP helpers. Netty's decoder parses the wire; every message is then {@link #detach detached}
 * into heap memory so replies can be shared, compared and dropped without reference counting.
 * Encoding is done here (not by Netty's encoder, which releases what it writes).
 */
public final class Resp {
  private static final byte[] CRLF = {'\r', '\n'};
  public static final RedisMessage OK = new SimpleStringRedisMessage("OK");
  public static final RedisMessage PONG = new SimpleStringRedisMessage("PONG");
  public static final RedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
  public static final RedisMessage NIL_ARRAY = ArrayRedisMessage.NULL_INSTANCE;
  public static final RedisMessage EMPTY_ARRAY = ArrayRedisMessage.EMPTY_INSTANCE;
  public static final RedisMessage ZERO = new IntegerRedisMessage(0);
  public static final RedisMessage ONE = new IntegerRedisMessage(1);

  public static final String PEER_NOT_CONNECTED = "ERR Peer: Peer Node is not connected";
  public static final String PEER_DOWN = "ERR Peer: Peer Node is down";
  /** What Dynomite answers when a peer does not reply within its timeout (observed on a paused node). */
  public static final String PEER_REFUSED = "ERR Peer: Peer Node refused connection";

  public static final String STORAGE_REFUSED = "ERR Storage: Datastore refused connection";
  public static final String NO_QUORUM = "ERR Dynomite: Failed to achieve Quorum";
  public static final String SCRIPT_SPANS_NODES =
      "ERR Dynomite: Keys in the script cannot span multiple nodes";
  public static final String STATE_DISALLOWS =
      "ERR Dynomite: Dynomite's current state does not allow this request";

  private Resp() {}

  public static RedisMessage err(String text) {
    return new ErrorRedisMessage(text);
  }

  public static RedisMessage integer(long v) {
    return v == 0 ? ZERO : v == 1 ? ONE : new IntegerRedisMessage(v);
  }

  public static RedisMessage simple(String s) {
    return new SimpleStringRedisMessage(s);
  }

  public static RedisMessage bulk(byte[] b) {
    return b == null ? NIL : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(b));
  }

  public static RedisMessage bulk(String s) {
    return bulk(s.getBytes(StandardCharsets.UTF_8));
  }

  public static RedisMessage array(List<RedisMessage> items) {
    return new ArrayRedisMessage(items);
  }

  public static RedisMessage bulkArray(Iterable<byte[]> items) {
    List<RedisMessage> l = new ArrayList<>();
    for (byte[] b : items) {
      l.add(bulk(b));
    }
    return array(l);
  }

  /** Whether this is one of Dynomite's own errors (peer, storage, quorum, state): not a datastore answer. */
  public static boolean isDynomiteError(RedisMessage m) {
    if (!(m instanceof ErrorRedisMessage e)) {
      return false;
    }
    String c = e.content();
    return c.startsWith("ERR Peer:")
        || c.startsWith("ERR Storage:")
        || c.startsWith("ERR Dynomite:");
  }

  public static byte[] bytes(RedisMessage m) {
    if (m instanceof FullBulkStringRedisMessage b) {
      return b.isNull() ? null : ByteBufUtil.getBytes(b.content());
    }
    return null;
  }

  /** The arguments of a request (array of bulk strings or an inline command); null if not a request. Releases it. */
  public static byte[][] toArgs(Object msg) {
    try {
      if (msg instanceof ArrayRedisMessage a) {
        if (a.isNull() || a.children().isEmpty()) {
          return null;
        }
        byte[][] args = new byte[a.children().size()][];
        int i = 0;
        for (RedisMessage c : a.children()) {
          if (c instanceof FullBulkStringRedisMessage b && !b.isNull()) {
            args[i++] = ByteBufUtil.getBytes(b.content());
          } else if (c instanceof SimpleStringRedisMessage s) {
            args[i++] = s.content().getBytes(StandardCharsets.UTF_8);
          } else if (c instanceof IntegerRedisMessage n) {
            args[i++] = Long.toString(n.value()).getBytes(StandardCharsets.US_ASCII);
          } else {
            return null;
          }
        }
        return args;
      }
      if (msg instanceof InlineCommandRedisMessage in) {
        String[] parts = in.content().trim().split("\\s+");
        if (parts.length == 0 || parts[0].isEmpty()) {
          return null;
        }
        byte[][] args = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
          args[i] = parts[i].getBytes(StandardCharsets.UTF_8);
        }
        return args;
      }
      return null;
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  /** A heap copy of a decoded reply; releases the original. */
  public static RedisMessage detach(RedisMessage m) {
    try {
      return copy(m);
    } finally {
      ReferenceCountUtil.release(m);
    }
  }

  private static RedisMessage copy(RedisMessage m) {
    if (m instanceof FullBulkStringRedisMessage b) {
      if (b.isNull()) {
        return NIL;
      }
      return new FullBulkStringRedisMessage(
          Unpooled.wrappedBuffer(ByteBufUtil.getBytes(b.content())));
    }
    if (m instanceof ArrayRedisMessage a) {
      if (a.isNull()) {
        return NIL_ARRAY;
      }
      List<RedisMessage> l = new ArrayList<>(a.children().size());
      for (RedisMessage c : a.children()) {
        l.add(copy(c));
      }
      return new ArrayRedisMessage(l);
    }
    return m; // simple string, error, integer: immutable, no buffer
  }

  /** Structural equality of two replies. */
  public static boolean same(RedisMessage a, RedisMessage b) {
    if (a instanceof FullBulkStringRedisMessage x && b instanceof FullBulkStringRedisMessage y) {
      return x.isNull() ? y.isNull() : !y.isNull() && ByteBufUtil.equals(x.content(), y.content());
    }
    if (a instanceof ArrayRedisMessage x && b instanceof ArrayRedisMessage y) {
      if (x.isNull() || y.isNull()) {
        return x.isNull() == y.isNull();
      }
      if (x.children().size() != y.children().size()) {
        return false;
      }
      for (int i = 0; i < x.children().size(); i++) {
        if (!same(x.children().get(i), y.children().get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof IntegerRedisMessage x && b instanceof IntegerRedisMessage y) {
      return x.value() == y.value();
    }
    if (a instanceof ErrorRedisMessage x && b instanceof ErrorRedisMessage y) {
      return x.content().equals(y.content());
    }
    if (a instanceof SimpleStringRedisMessage x && b instanceof SimpleStringRedisMessage y) {
      return x.content().equals(y.content());
    }
    return false;
  }

  /** Writes a reply; does not release it. */
  public static void encode(RedisMessage m, ByteBuf out) {
    if (m instanceof SimpleStringRedisMessage s) {
      out.writeByte('+');
      ByteBufUtil.writeUtf8(out, s.content());
      out.writeBytes(CRLF);
    } else if (m instanceof ErrorRedisMessage e) {
      out.writeByte('-');
      ByteBufUtil.writeUtf8(out, e.content());
      out.writeBytes(CRLF);
    } else if (m instanceof IntegerRedisMessage n) {
      out.writeByte(':');
      writeLong(out, n.value());
      out.writeBytes(CRLF);
    } else if (m instanceof FullBulkStringRedisMessage b) {
      if (b.isNull()) {
        out.writeBytes(NULL_BULK);
      } else {
        ByteBuf c = b.content();
        out.writeByte('$');
        writeLong(out, c.readableBytes());
        out.writeBytes(CRLF);
        out.writeBytes(c, c.readerIndex(), c.readableBytes());
        out.writeBytes(CRLF);
      }
    } else if (m instanceof ArrayRedisMessage a) {
      if (a.isNull()) {
        out.writeBytes(NULL_ARRAY);
      } else {
        out.writeByte('*');
        writeLong(out, a.children().size());
        out.writeBytes(CRLF);
        for (RedisMessage c : a.children()) {
          encode(c, out);
        }
      }
    } else {
      throw new IllegalArgumentException("cannot encode " + m.getClass().getName());
    }
  }

  private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

  /** Writes a command as an array of bulk strings. */
  public static void encodeCommand(byte[][] args, ByteBuf out) {
    out.writeByte('*');
    writeLong(out, args.length);
    out.writeBytes(CRLF);
    for (byte[] a : args) {
      out.writeByte('$');
      writeLong(out, a.length);
      out.writeBytes(CRLF);
      out.writeBytes(a);
      out.writeBytes(CRLF);
    }
  }

  public static int commandSize(byte[][] args) {
    int n = 16;
    for (byte[] a : args) {
      n += a.length + 16;
    }
    return n;
  }

  private static void writeLong(ByteBuf out, long v) {
    if (v >= 0 && v < 10) {
      out.writeByte('0' + (int) v);
    } else {
      out.writeCharSequence(Long.toString(v), StandardCharsets.US_ASCII);
    }
  }

  public static String str(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  public static String upper(byte[] b) {
    char[] c = new char[b.length];
    for (int i = 0; i < b.length; i++) {
      int x = b[i] & 0xff;
      c[i] = (char) (x >= 'a' && x <= 'z' ? x - 32 : x);
    }
    return new String(c);
  }

  /** Short text of a reply for logs and errors. */
  public static String describe(RedisMessage m) {
    if (m instanceof ErrorRedisMessage e) return "-" + e.content();
    if (m instanceof SimpleStringRedisMessage s) return "+" + s.content();
    if (m instanceof IntegerRedisMessage n) return ":" + n.value();
    if (m instanceof FullBulkStringRedisMessage b)
      return b.isNull() ? "(nil)" : '"' + b.content().toString(StandardCharsets.UTF_8) + '"';
    if (m instanceof ArrayRedisMessage a)
      return a.isNull() ? "(nil array)" : "array[" + a.children().size() + "]";
    return String.valueOf(m);
  }
}
