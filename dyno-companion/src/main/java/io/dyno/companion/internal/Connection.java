package io.dyno.companion.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.internal.KnownCommands;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One accepted connection, on the client port or (peer = true) on the peer port. Requests are
 * answered strictly in order: each gets a slot, replies fill slots as they arrive (from the
 * datastore, peers, quorums) and the ready prefix is written, flushed once per read batch.
 * Peer connections run every command on the node's own datastore; client connections route it.
 */
final class Connection extends ChannelInboundHandlerAdapter {
  private static final Set<String> SCRIPT_SUBCOMMANDS = Set.of("LOAD", "EXISTS", "FLUSH", "KILL");

  private static final class Slot {
    RedisMessage reply;
    boolean done;
    boolean closeAfter;
  }

  private final NodeServer node;
  private final Coordinator coordinator;
  private final NodeCounters counters;
  private final boolean peer;
  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  private Channel channel;
  private LoopState loop;
  private ConsistencyLevel readLevel;
  private ConsistencyLevel writeLevel;
  private boolean inRead;
  private boolean needFlush;
  private boolean dropRestOfRead;
  private boolean closing;
  private boolean stuck;
  private boolean closingCounted;

  Connection(NodeServer node, boolean peer) {
    this.node = node;
    this.coordinator = node.coordinator();
    this.counters = node.counters();
    this.peer = peer;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    loop = node.loopState(channel.eventLoop());
    if (peer && node.peersCut()) {
      closing = true;
      ctx.close();
      return;
    }
    if (!peer) {
      counters.clientConnections.incrementAndGet();
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!peer && loop != null && !closingCounted) {
      closingCounted = true;
      counters.clientConnections.decrementAndGet();
    }
    closing = true;
    slots.clear();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    inRead = true;
    // Dynomite's parser knows one inline command, a bare PING; any other inline text is a parse
    // error.
    boolean badInline = !peer
        && msg instanceof InlineCommandRedisMessage in
        && !in.content().trim().equalsIgnoreCase("PING");
    byte[][] args = Resp.toArgs(msg);
    if (closing || stuck || dropRestOfRead) {
      return;
    }
    if (args == null || badInline) {
      closeNow();
      return;
    }
    if (peer) {
      counters.peerRequests.increment();
      handlePeer(args);
    } else {
      counters.requests.increment();
      handleClient(args);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    inRead = false;
    dropRestOfRead = false;
    if (needFlush) {
      needFlush = false;
      ctx.flush();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Protocol errors and resets: Dynomite drops the connection.
    closing = true;
    ctx.close();
  }

  private void handlePeer(byte[][] args) {
    Slot s = newSlot();
    if (node.faults().hung()) {
      return;
    }
    String error = node.faults().error();
    if (error != null) {
      complete(s, Resp.err(error));
      return;
    }
    coordinator.executeLocal(args, loop, r -> complete(s, r));
  }

  private void handleClient(byte[][] args) {
    String name = Resp.upper(args[0]);
    KnownCommands.Refusal refused = Shapes.refusal(name, args);
    if (refused != null) { // a command or argument shape Dynomite does not serve
      if (refused.waits()) {
        // Dynomite waits for the rest of the request: nothing on this connection is answered
        stuck = true;
      } else {
        closeNow(); // it drops the connection
      }
      return;
    }
    Commands.Spec spec = Commands.lookup(name);
    switch (spec.kind()) {
      case UNSUPPORTED -> {
        closeNow();
        return;
      }
      case CONSISTENCY -> {
        consistency(args);
        return;
      }
      case CONFIG -> {
        if (args.length < 3 || !Resp.upper(args[1]).equals("GET")) {
          closeNow();
          return;
        }
      }
      case SCRIPT -> {
        if (args.length < 2 || !SCRIPT_SUBCOMMANDS.contains(Resp.upper(args[1]))) {
          closeNow();
          return;
        }
      }
      case KEY, KEY_LOCAL_RACK -> {
        if (args.length < 2) {
          closeNow(); // Dynomite cannot parse it: it drops the connection
          return;
        }
      }
      case MULTI -> {
        if (args.length < 2 || (args.length - 1) % spec.step() != 0) {
          closeNow();
          return;
        }
      }
      case EVAL, EVALSHA -> {
        if (evalKeys(args) == null) {
          closeNow();
          return;
        }
      }
      default -> {}
    }
    (spec.write() ? counters.clientWrites : counters.clientReads).increment();
    Slot s = newSlot();
    if (node.faults().hung()) {
      return; // never answered; later replies on this connection wait behind it
    }
    String error = node.faults().error();
    if (error != null) {
      complete(s, Resp.err(error));
      return;
    }
    if (spec.kind() == Commands.Kind.PING && !node.state().equals("NORMAL")) {
      // Dynomite sends PING to the local datastore, a read: refused in every state but NORMAL
      complete(s, Resp.err(Resp.STATE_DISALLOWS));
      return;
    }
    Consumer<RedisMessage> done = r -> complete(s, r);
    switch (spec.kind()) {
      // Dynomite answers PING from the local datastore: with it down, PING gets the storage error
      // too
      case PING ->
        complete(
            s,
            node.backendIsDown()
                ? Resp.err(Resp.STORAGE_REFUSED)
                : args.length > 1 ? Resp.bulk(args[1]) : Resp.PONG);
      case QUIT -> {
        s.closeAfter = true;
        complete(s, Resp.OK);
      }
      case LOCAL, CONFIG -> coordinator.executeLocal(args, loop, done);
      case SCRIPT -> coordinator.broadcast(args, loop, done);
      case KEY -> coordinator.route(args[1], spec.write(), args, level(spec.write()), loop, done);
      case KEY_LOCAL_RACK ->
        coordinator.route(args[1], false, args, ConsistencyLevel.DC_ONE, loop, done);
      case MULTI ->
        MultiKeySplit.route(coordinator, name, spec, args, level(spec.write()), loop, done);
      case EVAL -> {
        List<byte[]> keys = evalKeys(args);
        if (!coordinator.sameOwner(keys)) {
          complete(s, Resp.err(Resp.SCRIPT_SPANS_NODES));
        } else {
          coordinator.route(keys.get(0), true, args, level(true), loop, done);
        }
      }
      case EVALSHA -> {
        // Dynomite checks EVAL's keys but not EVALSHA's: it goes to the first key's owner.
        List<byte[]> keys = evalKeys(args);
        coordinator.route(keys.get(0), true, args, level(true), loop, done);
      }
      default -> closeNow();
    }
  }

  private ConsistencyLevel level(boolean write) {
    ConsistencyLevel l = write ? writeLevel : readLevel;
    return l != null ? l : write ? node.writeLevel() : node.readLevel();
  }

  /** {@code DYNO_CONFIG:CONN_CONSISTENCY <level>}: +OK; a bad level closes; the rest of this read is dropped. */
  private void consistency(byte[][] args) {
    if (args.length < 2) {
      // Dynomite waits for the missing argument: nothing on this connection is answered
      stuck = true;
      return;
    }
    ConsistencyLevel l;
    try {
      l = ConsistencyLevel.parse(Resp.str(args[1]));
    } catch (IllegalArgumentException e) {
      closeNow();
      return;
    }
    readLevel = l;
    writeLevel = l;
    dropRestOfRead = true;
    Slot s = newSlot();
    if (!node.faults().hung()) {
      complete(s, Resp.OK);
    }
  }

  /** EVAL script numkeys key... : the keys, or null when numkeys is missing, bad, zero or too large. */
  private static List<byte[]> evalKeys(byte[][] args) {
    if (args.length < 4) {
      return null;
    }
    int n;
    try {
      n = Integer.parseInt(Resp.str(args[2]));
    } catch (NumberFormatException e) {
      return null;
    }
    if (n < 1 || 3 + n > args.length) {
      return null;
    }
    return Arrays.asList(args).subList(3, 3 + n);
  }

  // ---- ordered replies ----

  private Slot newSlot() {
    Slot s = new Slot();
    slots.add(s);
    return s;
  }

  private void complete(Slot s, RedisMessage reply) {
    long delay = node.faults().delayNanos();
    if (delay > 0) {
      channel.eventLoop().schedule(() -> finish(s, reply), delay, TimeUnit.NANOSECONDS);
    } else {
      finish(s, reply);
    }
  }

  private void finish(Slot s, RedisMessage reply) {
    s.reply = reply;
    s.done = true;
    drain();
  }

  /**
   * Drops the connection at once, as Dynomite does on a request it cannot parse or serve: replies
   * not yet sent are lost with it (written but unflushed ones included), nothing more is read.
   */
  private void closeNow() {
    closing = true;
    slots.clear();
    channel.close();
  }

  private void drain() {
    ByteBuf out = null;
    boolean close = false;
    Slot s;
    while ((s = slots.peek()) != null && s.done) {
      slots.poll();
      if (s.reply != null) {
        if (out == null) {
          out = channel.alloc().ioBuffer(256);
        }
        Resp.encode(s.reply, out);
      }
      if (s.closeAfter) {
        close = true;
        break;
      }
    }
    if (close) {
      closing = true;
      slots.clear();
      channel
          .writeAndFlush(out != null ? out : Unpooled.EMPTY_BUFFER)
          .addListener(ChannelFutureListener.CLOSE);
      return;
    }
    if (out != null) {
      channel.write(out, channel.voidPromise());
      if (inRead) {
        needFlush = true;
      } else {
        channel.flush();
      }
    }
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
