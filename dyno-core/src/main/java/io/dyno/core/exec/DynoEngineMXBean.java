package io.dyno.core.exec;

/** JMX view of a {@link DynoEngine}, registered as {@code io.dyno:type=DynoEngine,name=<app>}. */
public interface DynoEngineMXBean {
  /** Topology by rack and token, each node's health and pool figures, and the configuration. */
  String getSnapshot();

  /** The effective configuration, one {@code setting=value} per line. */
  String getConfiguration();

  int getNodesUp();

  int getNodesDown();
}
