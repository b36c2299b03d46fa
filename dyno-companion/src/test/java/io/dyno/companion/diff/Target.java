package io.dyno.companion.diff;

/**
 * One cluster a conversation runs against: nodes 0..size-1 datacenter by datacenter, rack by rack,
 * each rack in token order. Real Dynomite (when recording) and the companion (when replaying)
 * answer the same calls.
 */
interface Target extends AutoCloseable {
  String name();

  int size();
  /** "rack1-0" etc.; "dc2/rack1-0" where the cluster has several datacenters. */
  String label(int i);

  int clientPort(int i);

  int peerPort(int i);

  int adminPort(int i);

  int redisPort(int i);
  /** The node stops answering (a hung process); its sockets stay open. */
  void pause(int i);

  void resume(int i);
  /** The node's proxy goes away (its port refuses connections); its Redis keeps its data. */
  void kill(int i);
  /** The node's proxy comes back on the same ports. */
  void start(int i);
  /** The node's Redis refuses connections; the proxy stays up. */
  void killRedis(int i);
  /** The node's Redis answers again (real Dynomite's comes back empty: read nothing from it after). */
  void startRedis(int i);
  /** Returns once a write through every node is readable in every rack's Redis again. */
  void awaitReplicating();

  @Override
  void close();
}
