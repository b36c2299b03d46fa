package io.dyno.core;

import java.util.List;

/** Says which Dynomite nodes exist and whether each is up (static list, Eureka, …). */
@FunctionalInterface
public interface HostSupplier {
  /**
   * The current nodes. Throwing (or returning an empty list) means "no answer this time": the
   * caller keeps the last good topology and reports the reason.
   */
  List<Host> getHosts() throws Exception;
}
