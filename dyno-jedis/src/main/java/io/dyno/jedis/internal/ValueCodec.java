package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The one compressed-value format of Dyno, for string and binary values alike:
 *
 * <pre>
 *   0xFE 'D' 'Z' 0x01 | original length (4 bytes, big-endian) | raw DEFLATE data (RFC 1951)
 * </pre>
 *
 * 0xFE never occurs in UTF-8, so no text value can be mistaken for a compressed one. Values are
 * compressed when longer than the threshold; reads decompress any value carrying the header,
 * whatever the threshold is now (or was), including 0 = compression off.
 */
public final class ValueCodec {
  static final byte[] MAGIC = {(byte) 0xFE, 'D', 'Z', 0x01};
  private static final int HEADER = MAGIC.length + 4;
  private static final int MAX_ORIGINAL = 512 * 1024 * 1024; // Redis's own value limit

  private final int threshold;

  /** {@code threshold} bytes: values longer than it are compressed; 0 turns compression off (reads still decode). */
  public ValueCodec(int threshold) {
    if (threshold < 0) {
      throw new IllegalArgumentException("compressionThreshold must be >= 0 bytes, was " + threshold);
    }
    this.threshold = threshold;
  }

  public boolean compressing() {
    return threshold > 0;
  }

  public int threshold() {
    return threshold;
  }

  /** The value to store: compressed with the header when longer than the threshold and smaller that way. */
  public byte[] encode(byte[] value) {
    if (threshold == 0 || value.length <= threshold) {
      return value;
    }
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    try {
      d.setInput(value);
      d.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(value.length / 2 + HEADER);
      out.write(MAGIC, 0, MAGIC.length);
      int n = value.length;
      out.write(n >>> 24);
      out.write(n >>> 16);
      out.write(n >>> 8);
      out.write(n);
      byte[] buf = new byte[8192];
      while (!d.finished()) {
        int k = d.deflate(buf);
        out.write(buf, 0, k);
      }
      byte[] packed = out.toByteArray();
      return packed.length < value.length ? packed : value;
    } finally {
      d.end();
    }
  }

  /** True when {@code value} carries the compressed-value header. */
  public static boolean isCompressed(byte[] value) {
    if (value == null || value.length < HEADER) {
      return false;
    }
    for (int i = 0; i < MAGIC.length; i++) {
      if (value[i] != MAGIC[i]) {
        return false;
      }
    }
    return true;
  }

  /** The original value of a stored one (unchanged when it has no header). */
  public static byte[] decode(byte[] value) {
    if (!isCompressed(value)) {
      return value;
    }
    int n = (value[4] & 0xff) << 24 | (value[5] & 0xff) << 16 | (value[6] & 0xff) << 8 | (value[7] & 0xff);
    if (n < 0 || n > MAX_ORIGINAL) {
      throw new DynoException("compressed value declares an impossible length " + n);
    }
    Inflater inf = new Inflater(true);
    try {
      inf.setInput(value, HEADER, value.length - HEADER);
      byte[] out = new byte[n];
      int off = 0;
      while (off < n) {
        int k = inf.inflate(out, off, n - off);
        if (k == 0 && (inf.finished() || inf.needsInput())) {
          break;
        }
        off += k;
      }
      if (off != n) {
        throw new DynoException("compressed value is truncated: " + off + " of " + n + " bytes");
      }
      return out;
    } catch (DataFormatException e) {
      throw new DynoException("compressed value is corrupt: " + e.getMessage(), e);
    } finally {
      inf.end();
    }
  }

  /** Decodes every compressed byte[] in a raw reply (a value, or nested lists of values). */
  public static Object decodeReply(Object raw) {
    if (raw instanceof byte[] b) {
      return decode(b);
    }
    if (raw instanceof List<?> list) {
      boolean any = false;
      for (Object o : list) {
        if (o instanceof List<?> || (o instanceof byte[] b && isCompressed(b))) {
          any = true;
          break;
        }
      }
      if (!any) {
        return raw;
      }
      List<Object> out = new ArrayList<>(list.size());
      for (Object o : list) {
        out.add(decodeReply(o));
      }
      return out;
    }
    return raw;
  }
}
