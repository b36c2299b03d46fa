package io.dyno.jedis.internal.mux;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One submit: its encoded bytes until written, then its place in the connection's reply FIFO. The
 * request is its own future (one object per call). It keeps its FIFO slot after it failed (timeout)
 * so its late reply is read and dropped and the stream stays in step.
 */
abstract class MuxRequest<T> extends CompletableFuture<T> {
  /** The command (null for a pipeline): its name is only needed in error messages. */
  private final ProtocolCommand command;

  private final int commands;
  /** Its encoded bytes while it is queued. */
  private ByteBuf bytes;

  private long startNanos;
  private long deadlineNanos;
  private long writtenNanos;
  /** The last request of its write: its reply ends that write's round trip (event loop only). */
  private boolean endsWrite;
  /**
   * No caller waits on this request while it is in the connection's books (an asynchronous submit,
   * a pipeline, or a waited request whose timeout passed): counted in {@link MuxBooks#detached}
   * until it leaves them, and while any is counted no caller socket may overtake it.
   */
  private boolean detached;

  MuxRequest(ProtocolCommand command, int commands, boolean detached) {
    this.command = command;
    this.commands = commands;
    this.detached = detached;
  }

  /** Commands it carries (a pipeline's size, else 1). */
  final int commands() {
    return commands;
  }

  /** Its time starts at {@code start}; its timeout passes {@code timeoutNanos} later. */
  final void timed(long start, long timeoutNanos) {
    startNanos = start;
    deadlineNanos = start + timeoutNanos;
  }

  final long startNanos() {
    return startNanos;
  }

  final long deadlineNanos() {
    return deadlineNanos;
  }

  /** Whether its timeout has passed at {@code now}. */
  final boolean pastDeadline(long now) {
    return now - deadlineNanos >= 0;
  }

  /** Queued: it holds its encoded bytes until written. */
  final void hold(ByteBuf encoded) {
    bytes = encoded;
  }

  /** Written at {@code now}: the bytes it held (null if none) go out, and it awaits its reply. */
  final ByteBuf written(long now) {
    ByteBuf b = bytes;
    bytes = null;
    writtenNanos = now;
    return b;
  }

  final long writtenNanos() {
    return writtenNanos;
  }

  /** It is the last request of its write (event loop). */
  final void endWrite() {
    endsWrite = true;
  }

  final boolean endsWrite() {
    return endsWrite;
  }

  /** No caller waits on it (see {@link #detached}). */
  final boolean detached() {
    return detached;
  }

  /** Event loop: its caller stops waiting (its timeout passed) while it is still unanswered. */
  final void detach(MuxBooks books) {
    if (!detached) {
      detached = true;
      books.detachedEntered();
    }
  }

  /**
   * It leaves the connection's books (answered, dropped unsent or failed): its in-flight permit
   * comes back, and it no longer holds callers back.
   */
  final void leaveBooks(MuxBooks books) {
    books.givePermit();
    if (detached) {
      books.detachedLeft();
    }
  }

  /** For messages: the command's name, or the pipeline's size. */
  final String describe() {
    return command == null
        ? "a pipeline of " + commands + " commands"
        : new String(command.getRaw(), StandardCharsets.UTF_8);
  }

  /** Takes one reply (event loop); true when the request has all its replies and leaves the FIFO. */
  abstract boolean accept(Object raw);

  /** Completes with what {@link #accept} took, once it returned true (event loop). */
  abstract void finish();

  /** Frees the bytes of a request that will not be written. */
  final void releaseBytes() {
    ByteBuf b = bytes;
    bytes = null;
    if (b != null) {
      b.release();
    }
  }

  static final class Single extends MuxRequest<Object> {
    private final boolean errorRepliesFail;
    private Object reply;

    Single(ProtocolCommand command, boolean errorRepliesFail, boolean detached) {
      super(command, 1, detached);
      this.errorRepliesFail = errorRepliesFail;
    }

    @Override
    boolean accept(Object raw) {
      reply = raw;
      return true;
    }

    @Override
    void finish() {
      // Either is a no-op when it already timed out: the late reply is dropped.
      if (errorRepliesFail && reply instanceof JedisDataException e) {
        completeExceptionally(e);
      } else {
        complete(reply);
      }
    }
  }

  /** Several commands written contiguously; their replies come back as one list, in order. */
  static final class Pipeline extends MuxRequest<List<Object>> {
    private final List<Object> replies;

    Pipeline(int commands) {
      super(null, commands, true);
      this.replies = new ArrayList<>(commands);
    }

    @Override
    boolean accept(Object raw) {
      replies.add(raw);
      return replies.size() == commands();
    }

    @Override
    void finish() {
      complete(replies);
    }
  }
}
