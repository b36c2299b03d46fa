package io.dyno.core.exec;

/** JMX view of a client's engine, registered as {@code io.dyno:type=DynoEngine,name=<app>}. */
public interface DynoEngineMXBean {
  /** {@return the topology by rack and token, each node's health and pool figures, and the configuration} */
  String getSnapshot();

  /** {@return the effective configuration, one {@code setting=value} per line} */
  String getConfiguration();

  /** {@return how many nodes take traffic now: reported UP by the host source and not out of rotation} */
  int getNodesUp();

  /** {@return how many nodes node health has taken out of rotation after failures} */
  int getNodesDown();
}
