package io.dyno.jedis.internal.mux;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;

/**
 * Writes commands as RESP arrays of bulk strings ({@code *n\r\n$len\r\n...\r\n}) into one buffer of
 * exactly the right size. Runs on the caller's thread, so the event loop only moves bytes.
 */
final class RespEncoder {
  private static final byte[] CRLF = {'\r', '\n'};

  private RespEncoder() {}

  /** One command. */
  static ByteBuf encode(ByteBufAllocator alloc, CommandArguments cmd) {
    byte[][] raws = raws(cmd);
    ByteBuf buf = alloc.ioBuffer(size(raws));
    write(buf, raws);
    return buf;
  }

  /** One command into an array of its own (for a socket's stream). */
  static byte[] encodeToArray(CommandArguments cmd) {
    byte[][] raws = raws(cmd);
    byte[] out = new byte[size(raws)];
    ByteBuf buf = Unpooled.wrappedBuffer(out);
    buf.writerIndex(0);
    write(buf, raws);
    return out;
  }

  /** Several commands back to back in one buffer: they leave contiguously, whatever else is queued. */
  static ByteBuf encode(ByteBufAllocator alloc, List<CommandArguments> cmds) {
    byte[][][] all = new byte[cmds.size()][][];
    int size = 0;
    for (int i = 0; i < all.length; i++) {
      all[i] = raws(cmds.get(i));
      size += size(all[i]);
    }
    ByteBuf buf = alloc.ioBuffer(size);
    for (byte[][] raws : all) {
      write(buf, raws);
    }
    return buf;
  }

  /** Each argument's bytes once (getRaw may allocate, so it is not called twice). */
  private static byte[][] raws(CommandArguments cmd) {
    byte[][] raws = new byte[cmd.size()][];
    int i = 0;
    for (Rawable arg : cmd) {
      byte[] raw = arg.getRaw();
      if (raw == null) {
        throw new IllegalArgumentException("argument " + i + " of " + name(cmd) + " is null");
      }
      raws[i++] = raw;
    }
    return raws;
  }

  private static int size(byte[][] raws) {
    long size = 1 + digits(raws.length) + 2;
    for (byte[] raw : raws) {
      size += 1 + digits(raw.length) + 2 + raw.length + 2;
    }
    if (size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("command of " + size + " bytes is larger than 2 GiB");
    }
    return (int) size;
  }

  private static void write(ByteBuf buf, byte[][] raws) {
    buf.writeByte('*');
    writeInt(buf, raws.length);
    buf.writeBytes(CRLF);
    for (byte[] raw : raws) {
      buf.writeByte('$');
      writeInt(buf, raw.length);
      buf.writeBytes(CRLF);
      buf.writeBytes(raw);
      buf.writeBytes(CRLF);
    }
  }

  static String name(CommandArguments cmd) {
    return cmd.getCommand() == null
        ? "?"
        : new String(cmd.getCommand().getRaw(), StandardCharsets.UTF_8);
  }

  private static int digits(int n) {
    int d = 1;
    while (n >= 10) {
      n /= 10;
      d++;
    }
    return d;
  }

  /** A non-negative int in ASCII without a String in between. */
  private static void writeInt(ByteBuf buf, int n) {
    int d = digits(n);
    int at = buf.writerIndex();
    buf.ensureWritable(d);
    for (int i = d - 1; i >= 0; i--) {
      buf.setByte(at + i, '0' + n % 10);
      n /= 10;
    }
    buf.writerIndex(at + d);
  }
}
