package io.dyno.companion;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Shape of the cluster {@link CompanionClusterExtension} starts for a test class. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Inherited
public @interface CompanionClusterConfig {
  int racks() default 3;

  int nodesPerRack() default 2;

  Backend backend() default Backend.MEMORY;

  String datacenter() default "dc1";
  /** Two characters such as {@code "{}"}, or empty for none. */
  String hashtag() default "";
  /** Peer reply timeout in milliseconds. */
  long peerTimeoutMillis() default 5000;
}
