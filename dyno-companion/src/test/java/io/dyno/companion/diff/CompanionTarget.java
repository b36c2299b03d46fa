package io.dyno.companion.diff;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;

/** A companion cluster as a conversation target. */
final class CompanionTarget implements Target {
  private final CompanionCluster cluster;

  CompanionTarget(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  private CompanionNode n(int i) {
    return cluster.nodes().get(i);
  }

  @Override
  public String name() {
    return "companion";
  }

  @Override
  public int size() {
    return cluster.nodes().size();
  }

  @Override
  public String label(int i) {
    CompanionNode n = n(i);
    String label = n.rack() + "-" + cluster.nodes(n.datacenter(), n.rack()).indexOf(n);
    return cluster.datacenters().size() > 1 ? n.datacenter() + "/" + label : label;
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
    n(i).hang();
  }

  @Override
  public void resume(int i) {
    n(i).unhang();
  }

  @Override
  public void kill(int i) {
    n(i).stop();
  }

  @Override
  public void start(int i) {
    n(i).start();
  }

  @Override
  public void killRedis(int i) {
    n(i).backendDown();
  }
  /** As a real redis-server restarted without persistence: back, and empty. */
  @Override
  public void startRedis(int i) {
    n(i).backendUp();
    Wire.exchange(n(i).redisPort(), Wire.cmd("FLUSHALL"), 1, Steps.WAIT);
  }
  /** The companion connects its peers when it needs them: it replicates as soon as it runs. */
  @Override
  public void awaitReplicating() {}

  @Override
  public void close() {
    cluster.close();
  }
}
