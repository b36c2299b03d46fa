package io.dyno.jedis;

import io.dyno.jedis.internal.PipelineBatch;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A pipeline over the whole cluster: commands on any keys are queued, and {@link #sync()} sends
 * each owner node its group in one write (all groups written before any reply is read, so the
 * nodes work at the same time, from the caller's thread) and completes every {@link Response}
 * in call order. Multi-key commands are split per owner as outside pipelines.
 *
 * <p>A node failing mid-pipeline: its group is retried on a replica in another rack when every
 * command of the group is idempotent; otherwise each command of the group gets its own error
 * (thrown by {@link Response#get()}). {@link #close()} sends what is still queued, exactly as
 * {@link #sync()} would (as Jedis's {@code Pipeline.close()} does), so a try-with-resources block
 * never drops a write. On a closed client, queuing and {@link #sync()} throw
 * {@link ClientClosedException}. Not thread-safe (like Jedis's pipelines).
 */
public final class DynoPipeline extends AbstractPipeline {
  private final PipelineBatch batch;
  private boolean closed;

  DynoPipeline(CommandObjects commandObjects, PipelineBatch batch) {
    super(commandObjects);
    this.batch = batch;
  }

  @Override
  protected <T> Response<T> appendCommand(CommandObject<T> commandObject) {
    if (closed) {
      throw new IllegalStateException("the pipeline is closed");
    }
    return batch.add(commandObject);
  }

  /** {@return the number of commands queued and not yet sent} */
  public int queued() {
    return batch.size();
  }

  @Override
  public void sync() {
    if (closed) {
      throw new IllegalStateException("the pipeline is closed");
    }
    batch.sync();
  }

  /**
   * Sends everything queued, as {@link #sync()} does.
   *
   * @return each command's result in call order; a command that failed contributes its exception
   *     (an error reply as {@link JedisDataException}, as Jedis does)
   */
  public List<Object> syncAndReturnAll() {
    if (closed) {
      throw new IllegalStateException("the pipeline is closed");
    }
    List<PipelineBatch.DynoResponse<?>> responses = batch.sync();
    List<Object> out = new ArrayList<>(responses.size());
    for (PipelineBatch.DynoResponse<?> r : responses) {
      try {
        out.add(r.get());
      } catch (RuntimeException e) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Sends the commands still queued, as {@link #sync()} does, and refuses further use; a failure
   * of that send is thrown as from {@link #sync()}. Idempotent: a second close, or a close after
   * {@link #sync()}, sends nothing. With nothing queued it never throws, even on a closed client.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true; // first: a close whose send failed is still a close (Jedis closes in a finally)
    if (batch.size() > 0) {
      batch.sync();
    }
  }
}
