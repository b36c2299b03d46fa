package com.example.cart;

import io.dyno.jedis.DynoJedisClient;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class CartApplication {

  public static void main(String[] args) {
    SpringApplication.run(CartApplication.class, args);
  }

  /** Reads the key the test wrote into the cluster, through the injected client. */
  @Bean
  CommandLineRunner greet(DynoJedisClient dyno) {
    return args -> System.out.println("greeting=" + dyno.get("greeting"));
  }
}
