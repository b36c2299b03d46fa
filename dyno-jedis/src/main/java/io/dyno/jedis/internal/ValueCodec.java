package io.dyno.jedis.internal;

import io.dyno.core.internal.KeyText;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.IntFunction;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;

/**
 * Dyno's compressed-value format, for string and binary values alike:
 *
 * <pre>
 *   0xFE 'D' 'Z' 0x01 | original length (4 bytes, big-endian) | raw DEFLATE data (RFC 1951)
 * </pre>
 *
 * 0xFE never occurs in UTF-8, so no text value can be mistaken for a compressed one. Values are
 * compressed when longer than the threshold.
 *
 * <p>Reads decode only the formats asked for (the API's {@code CompressedFormat}): by default Dyno's own when
 * compressing, none when compression is off, so a value another client stored is returned as
 * stored. Decoding trusts nothing in the value: the declared length is checked against what the
 * compressed bytes can possibly hold (DEFLATE expands at most {@value #DEFLATE_MAX_RATIO}:1) and
 * against {@code maxDecompressedSize} before anything is allocated, so a 12-byte value cannot
 * make the client allocate 512 MB.
 */
public final class ValueCodec {
  static final byte[] MAGIC = {(byte) 0xFE, 'D', 'Z', 0x01};
  private static final int HEADER = MAGIC.length + 4;
  /** DEFLATE's best case is 258 bytes from ~2 bits (RFC 1951 length 258, distance 1): about 1032:1. */
  static final int DEFLATE_MAX_RATIO = 1032;
  /** Default bound of a decompressed value. */
  public static final int DEFAULT_MAX_DECOMPRESSED_SIZE = 64 * 1024 * 1024;
  /** Netflix Dyno's GZIP magic, 1f 8b, and method 08 (deflate); "H4sI" is their Base64. */
  private static final byte[] GZIP_MAGIC = {0x1f, (byte) 0x8b, 0x08};

  private static final byte[] GZIP_BASE64 = {'H', '4', 's', 'I'};

  private final int threshold;
  private final int maxDecompressedSize;
  private final boolean readDyno;
  private final boolean readNetflix;

  /** {@code threshold} bytes: values longer than it are compressed; 0 turns compression off (and its decoding). */
  public ValueCodec(int threshold) {
    this(threshold, DEFAULT_MAX_DECOMPRESSED_SIZE, false, false);
  }

  /**
   * @param threshold values longer than this are stored compressed; 0 = off
   * @param maxDecompressedSize no value decodes to more than this many bytes (an error names the key)
   * @param readDyno whether reads decode Dyno's own format; it is always read while compressing
   * @param readNetflixDyno whether reads decode Netflix Dyno's format (Base64 of GZIP)
   */
  public ValueCodec(
      int threshold, int maxDecompressedSize, boolean readDyno, boolean readNetflixDyno) {
    if (threshold < 0) {
      throw new IllegalArgumentException(
          "compressionThreshold must be >= 0 bytes, was " + threshold);
    }
    if (maxDecompressedSize < 1) {
      throw new IllegalArgumentException(
          "maxDecompressedSize must be >= 1 byte, was " + maxDecompressedSize);
    }
    this.threshold = threshold;
    this.maxDecompressedSize = maxDecompressedSize;
    this.readDyno = threshold > 0 || readDyno;
    this.readNetflix = readNetflixDyno;
  }

  public boolean compressing() {
    return threshold > 0;
  }

  /** Whether reads decode anything at all. */
  public boolean decoding() {
    return readDyno || readNetflix;
  }

  public int threshold() {
    return threshold;
  }

  public int maxDecompressedSize() {
    return maxDecompressedSize;
  }

  /**
   * The value to store: compressed with the header when longer than the threshold and smaller that
   * way. A value that itself starts with the header is always stored compressed, whatever its size,
   * or a read would take it for a compressed one.
   */
  public byte[] encode(byte[] value) {
    if (threshold == 0) {
      return value;
    }
    boolean lookalike = isCompressed(value);
    if (value.length <= threshold && !lookalike) {
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
      return packed.length < value.length || lookalike ? packed : value;
    } finally {
      d.end();
    }
  }

  /** True when {@code value} carries Dyno's compressed-value header. */
  public static boolean isCompressed(byte[] value) {
    return startsWith(value, MAGIC) && value.length >= HEADER;
  }

  /**
   * The original value of a stored one: decoded when it is in a format this codec reads, otherwise
   * returned as stored. {@code key} only names the value in errors.
   */
  public byte[] decode(byte[] value, Object key) {
    if (value == null) {
      return null;
    }
    if (readDyno && isCompressed(value)) {
      return inflateDyno(value, key);
    }
    if (readNetflix) {
      if (startsWith(value, GZIP_BASE64)) {
        byte[] gzip;
        try {
          gzip = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException notBase64) {
          return value; // text that merely starts like it
        }
        if (startsWith(gzip, GZIP_MAGIC)) {
          // Netflix Dyno's strings: Base64(GZIP(Base64(UTF-8)))
          byte[] inner = gunzip(gzip, key, "Base64 of GZIP (Netflix Dyno)");
          try {
            return Base64.getMimeDecoder().decode(inner);
          } catch (IllegalArgumentException e) {
            throw new UnreadableReplyException(
                "value of key " + show(key) + " is Base64 of GZIP (Netflix Dyno) but its content"
                    + " is not Base64: " + e.getMessage());
          }
        }
      } else if (startsWith(value, GZIP_MAGIC)) {
        // Netflix Dyno's binary hash values written by its pipelines: raw GZIP.
        return gunzip(value, key, "GZIP (Netflix Dyno)");
      }
    }
    return value;
  }

  /** Decodes every stored value in a raw reply (a value, or nested lists of values), naming {@code key} in errors. */
  public Object decodeReply(Object raw, Object key) {
    return decodeReply(raw, i -> key);
  }

  /** As {@link #decodeReply(Object, Object)}, with the key of each top-level element (MGET). */
  public Object decodeReply(Object raw, IntFunction<Object> keyAt) {
    if (!decoding()) {
      return raw;
    }
    if (raw instanceof byte[] b) {
      return decode(b, keyAt.apply(0));
    }
    if (raw instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      boolean changed = false;
      for (int i = 0; i < list.size(); i++) {
        Object o = list.get(i);
        int at = i;
        Object d = decodeReply(o, j -> keyAt.apply(at));
        changed |= d != o;
        out.add(d);
      }
      return changed ? out : raw;
    }
    return raw;
  }

  private byte[] inflateDyno(byte[] value, Object key) {
    long n = (value[4] & 0xffL) << 24
        | (value[5] & 0xff) << 16
        | (value[6] & 0xff) << 8
        | (value[7] & 0xff);
    int packed = value.length - HEADER;
    long possible = (long) packed * DEFLATE_MAX_RATIO + 16;
    if (n > possible) {
      throw new UnreadableReplyException(
          "compressed value of key " + show(key) + " declares " + n + " bytes, more than its "
              + packed + " compressed bytes can hold: not a value Dyno wrote, or corrupt");
    }
    if (n > maxDecompressedSize) {
      throw new UnreadableReplyException("compressed value of key " + show(key) + " declares " + n
          + " bytes, more than maxDecompressedSize (" + maxDecompressedSize + " bytes)");
    }
    Inflater inf = new Inflater(true);
    try {
      inf.setInput(value, HEADER, packed);
      byte[] out = new byte[(int) n];
      int off = 0;
      while (off < n) {
        int k = inf.inflate(out, off, (int) n - off);
        if (k == 0 && (inf.finished() || inf.needsInput() || inf.needsDictionary())) {
          break;
        }
        off += k;
      }
      if (off != n) {
        throw new UnreadableReplyException("compressed value of key " + show(key)
            + " is truncated: " + off + " of " + n + " bytes");
      }
      if (!inf.finished() && inf.inflate(new byte[1]) > 0) {
        throw new UnreadableReplyException("compressed value of key " + show(key)
            + " is corrupt: longer than the " + n + " bytes it declares");
      }
      return out;
    } catch (DataFormatException e) {
      throw new UnreadableReplyException(
          "compressed value of key " + show(key) + " is corrupt: " + e.getMessage(), e);
    } finally {
      inf.end();
    }
  }

  private byte[] gunzip(byte[] gzip, Object key, String format) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip), 8192)) {
      ByteArrayOutputStream out =
          new ByteArrayOutputStream(Math.min(gzip.length * 4, maxDecompressedSize));
      byte[] buf = new byte[8192];
      long total = 0;
      int k;
      while ((k = in.read(buf)) > 0) {
        total += k;
        if (total > maxDecompressedSize) {
          throw new UnreadableReplyException(
              "value of key " + show(key) + " (" + format + ") decompresses to more than"
                  + " maxDecompressedSize (" + maxDecompressedSize + " bytes)");
        }
        out.write(buf, 0, k);
      }
      return out.toByteArray();
    } catch (IOException | RuntimeException e) {
      if (e instanceof UnreadableReplyException d) {
        throw d;
      }
      throw new UnreadableReplyException(
          "value of key " + show(key) + " looks like " + format + " but is corrupt: " + e, e);
    }
  }

  private static boolean startsWith(byte[] value, byte[] prefix) {
    if (value == null || value.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (value[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** A key for an error message (see {@link KeyText}); unknown when the caller had none to give. */
  static String show(Object key) {
    if (key == null) {
      return "(unknown)";
    }
    return KeyText.show(key);
  }
}
