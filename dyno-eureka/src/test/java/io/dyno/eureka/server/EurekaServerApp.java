package io.dyno.eureka.server;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.netflix.eureka.server.EnableEurekaServer;

/** A stock Spring Cloud Netflix Eureka server, nothing added; started by the tests on loopback. */
@SpringBootApplication
@EnableEurekaServer
public class EurekaServerApp {}
