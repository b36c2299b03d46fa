package io.dyno.companion.diff;

/** One cluster under the differential test: nodes 0..size-1 rack by rack, each rack in token order. */
interface Target extends AutoCloseable {
  String name();
  int size();
  /** "rack1-0" etc. */
  String label(int i);
  int clientPort(int i);
  int peerPort(int i);
  int adminPort(int i);
  int redisPort(int i);
  /** The node stops answering (a hung process); its sockets stay open. */
  void pause(int i);
  void resume(int i);
  @Override
  void close();
}
