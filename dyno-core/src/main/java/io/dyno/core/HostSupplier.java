package io.dyno.core;

import java.util.List;

/** Says which Dynomite nodes exist and whether each is up (static list, Eureka, …). */
@FunctionalInterface
public interface HostSupplier {
  /**
   * The current nodes. Throwing (or returning an empty list) means "no answer this time": the
   * caller keeps the last good topology and reports the reason. Called from the refresher's thread.
   *
   * @return every node with its status; nodes not listed are forgotten
   * @throws Exception when the source cannot answer this time
   */
  List<Host> getHosts() throws Exception;
}
