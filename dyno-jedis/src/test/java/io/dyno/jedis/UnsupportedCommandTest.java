package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.BitOP;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.search.Query;
import redis.clients.jedis.search.aggr.AggregationBuilder;

/** Commands Dynomite cannot serve are refused by the client and never cost a pooled connection. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnsupportedCommandTest {
  private CompanionCluster cluster;
  private DynoJedisClient client;

  @BeforeAll
  void start() {
    cluster = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("unsupported")
            .minConnsPerHost(1)
            .maxConnsPerHost(1)
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @AfterAll
  void stop() {
    client.close();
    cluster.close();
  }

  @Test
  void theCompanionReallyClosesTheConnectionOnAnUnsupportedCommand() {
    // The danger the client guards against: Dynomite answers nothing and drops the connection.
    CompanionNode n = cluster.node("rack1", 0);
    try (Connection raw = new Connection(new HostAndPort("127.0.0.1", n.clientPort()))) {
      assertThatThrownBy(() -> raw.executeCommand(new CommandArguments(Protocol.Command.FLUSHALL)))
          .isInstanceOf(JedisConnectionException.class);
    }
  }

  @Test
  void unsupportedCommandsAreRefusedByNameAndThePooledConnectionSurvives() {
    client.set("u:key", "v"); // warms one connection per owner
    Map<String, ThrowingCallable> refused = new LinkedHashMap<>();
    refused.put("FLUSHALL", client::flushAll);
    refused.put("FLUSHDB", client::flushDB);
    refused.put("DBSIZE", client::dbSize);
    refused.put("RENAME", () -> client.rename("u:key", "u:other"));
    refused.put("RENAMENX", () -> client.renamenx("u:key", "u:other"));
    refused.put("MSETNX", () -> client.msetnx("u:a", "1", "u:b", "2"));
    refused.put("RANDOMKEY", client::randomKey);
    refused.put("BITOP", () -> client.bitop(BitOP.AND, "u:dst", "u:key"));
    refused.put("BLPOP", () -> client.blpop(1, "u:list"));
    refused.put("BRPOP", () -> client.brpop(1, "u:list"));
    refused.put("ECHO", () -> client.echo("x"));
    refused.put("PUBLISH", () -> client.publish("chan", "m"));
    refused.put("MULTI", client::multi);
    refused.put("SCAN", () -> client.scan("0"));
    refused.put("CONFIG SET", () -> client.configSet("maxmemory", "1"));
    refused.put("COPY", () -> client.copy("u:key", "u:copy", false));
    refused.put("OBJECT", () -> client.objectEncoding("u:key"));
    refused.put("FT.SEARCH", () -> client.ftSearchIteration(10, "idx", new Query("*")));
    refused.put("FT.AGGREGATE", () -> client.ftAggregateIteration("idx", new AggregationBuilder()));
    refused.put("SUBSCRIBE", () -> client.subscribe(new JedisPubSub() {}, "chan"));
    Map<CompanionNode, Long> requestsBefore = new LinkedHashMap<>();
    Map<CompanionNode, Long> connectionsBefore = new LinkedHashMap<>();
    for (CompanionNode n : cluster.nodes()) {
      requestsBefore.put(n, n.stats().requests());
      connectionsBefore.put(n, n.stats().clientConnections());
    }
    for (Map.Entry<String, ThrowingCallable> e : refused.entrySet()) {
      assertThatThrownBy(e.getValue())
          .as(e.getKey())
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining(e.getKey())
          .satisfies(
              t -> assertThat(((UnsupportedCommandException) t).command()).isEqualTo(e.getKey()));
    }
    for (CompanionNode n : cluster.nodes()) {
      assertThat(n.stats().requests())
          .as("requests reaching " + n.host())
          .isEqualTo(requestsBefore.get(n));
      assertThat(n.stats().clientConnections())
          .as("connections of " + n.host())
          .isEqualTo(connectionsBefore.get(n));
    }
    assertThat(client.get("u:key")).isEqualTo("v");
    assertThat(client.mget(List.of("u:key", "u:none").toArray(new String[0])))
        .containsExactly("v", null);
  }
}
