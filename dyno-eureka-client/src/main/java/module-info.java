/** {@code EurekaClientHostSupplier}: the host mapping over an application's own {@code EurekaClient}. */
module io.dyno.eureka.client {
  requires transitive io.dyno.eureka;
  requires org.slf4j;
  requires static eureka.client;

  exports io.dyno.eureka.client;
}
