/** {@code EurekaHostSupplier}: Eureka's REST API read with the JDK HTTP client. */
module io.dyno.eureka {
  requires transitive io.dyno.core;
  requires org.slf4j;
  requires java.net.http;

  exports io.dyno.eureka;
  exports io.dyno.eureka.internal to
      io.dyno.eureka.client;
}
