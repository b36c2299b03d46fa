package io.dyno.companion.diff;

import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import java.time.Duration;

/** A real Dynomite cluster (processes) as a conversation target. */
final class DynomiteTarget implements Target {
  private final DynomiteCluster cluster;

  DynomiteTarget(DynomiteCluster cluster) {
    this.cluster = cluster;
  }

  DynomiteCluster cluster() {
    return cluster;
  }

  private DynomiteNode n(int i) {
    return cluster.nodes().get(i);
  }

  @Override
  public String name() {
    return "dynomite";
  }

  @Override
  public int size() {
    return cluster.nodes().size();
  }

  @Override
  public String label(int i) {
    String label = n(i).rack() + "-" + n(i).index();
    return cluster.datacenters().size() > 1 ? n(i).datacenter() + "/" + label : label;
  }

  @Override
  public int clientPort(int i) {
    return n(i).clientPort();
  }

  @Override
  public int peerPort(int i) {
    return n(i).peerPort();
  }

  @Override
  public int adminPort(int i) {
    return n(i).adminPort();
  }

  @Override
  public int redisPort(int i) {
    return n(i).redisPort();
  }

  @Override
  public void pause(int i) {
    n(i).pause();
  }

  @Override
  public void resume(int i) {
    n(i).resume();
  }

  @Override
  public void kill(int i) {
    n(i).kill();
  }

  @Override
  public void start(int i) {
    n(i).start();
  }

  @Override
  public void killRedis(int i) {
    n(i).killRedis();
  }

  @Override
  public void startRedis(int i) {
    n(i).startRedis();
  }
  /** A restarted Dynomite reconnects its peers after a few seconds and drops replication until then. */
  @Override
  public void awaitReplicating() {
    cluster.awaitReplicating(Duration.ofSeconds(30));
  }

  @Override
  public void close() {
    cluster.close();
  }
}
