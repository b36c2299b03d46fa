package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.mux.MuxConnectionTest.cmd;
import static io.dyno.jedis.internal.mux.MuxConnectionTest.str;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.ConsistencyLevel;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisDataException;

/** The multiplexed connection against a real Dynomite cluster (3 racks). */
class MuxDynomiteTest {
  static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void theConsistencyLevelIsSetOnConnectAndHoldsForTheConnectionsLife() throws Exception {
    DynomiteAssumptions.assumeBinary();
    EventLoopGroup group = MuxConnection.newEventLoopGroup(1, "mux-dynomite");
    try (DynomiteCluster cluster = DynomiteCluster.builder().racks(3).start()) {
      DynomiteNode n = cluster.node("rack1", 0);
      InetSocketAddress at = new InetSocketAddress("127.0.0.1", n.clientPort());
      try (MuxConnection quorum = MuxConnection.open(
              n.toString(), at, group, MuxSettings.defaults(), ConsistencyLevel.DC_QUORUM);
          MuxConnection one = MuxConnection.open(
              n.toString(), at, group, MuxSettings.defaults(), ConsistencyLevel.DC_ONE)) {
        assertThat(quorum.consistency()).isEqualTo(ConsistencyLevel.DC_QUORUM);
        // Many requests from many callers at once, through Dynomite.
        List<CompletableFuture<Object>> sets = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          sets.add(quorum.submit(cmd(Command.SET, "q" + i, "v" + i), 5 * SECOND));
        }
        for (CompletableFuture<Object> f : sets) {
          assertThat(str(f.get())).isEqualTo("OK");
        }
        for (int i = 0; i < 200; i += 20) {
          assertThat(str(quorum.submit(cmd(Command.GET, "q" + i), 5 * SECOND).get()))
              .isEqualTo("v" + i);
          assertThat(str(one.submit(cmd(Command.GET, "q" + i), 5 * SECOND).get()))
              .isEqualTo("v" + i);
        }

        // With the local Redis gone, DC_ONE reads fail in Dynomite while DC_QUORUM reads are served
        // by the
        // other racks: proof each connection really carries its own level.
        n.killRedis();
        try {
          Object viaOne = one.submit(cmd(Command.GET, "q0"), 10 * SECOND).get();
          assertThat(viaOne).isInstanceOf(JedisDataException.class);
          assertThat(((JedisDataException) viaOne).getMessage())
              .contains("Datastore refused connection");
          assertThat(str(quorum.submit(cmd(Command.GET, "q0"), 10 * SECOND).get()))
              .isEqualTo("v0");
          assertThat(one.isBroken()).isFalse(); // a data error never closes a connection
        } finally {
          n.startRedis();
        }
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
