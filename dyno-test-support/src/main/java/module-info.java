/** The redis-server fixture every Dyno module's tests (and the companion's backends) start servers with. */
module io.dyno.testsupport {
  requires static org.junit.jupiter.api;

  exports io.dyno.testsupport;
}
