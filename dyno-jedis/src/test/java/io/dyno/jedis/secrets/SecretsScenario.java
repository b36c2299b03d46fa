package io.dyno.jedis.secrets;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Run in its own JVM by {@link SecretsScanTest} with every log level on: uses the client with a
 * password in every way it takes one, makes it fail in every way that carries one near, and
 * prints everything the client can print. Arguments: redis port, password, dead port.
 * Never prints its arguments.
 */
public final class SecretsScenario {
  private SecretsScenario() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String password = args[1];
    int deadPort = Integer.parseInt(args[2]);
    DynoConfig config = DynoConfig.builder()
        .applicationName("secrets")
        .datastoreMode(true)
        .connectTimeout(Duration.ofMillis(500))
        .socketTimeout(Duration.ofMillis(500))
        .build();
    System.out.println("== config describe: " + config.describe());
    System.out.println("== config toString: " + config);

    // 1. The password given to the builder.
    Host plain = Host.builder("127.0.0.1", port)
        .datastorePort(port)
        .rack("rack1")
        .datacenter("dc1")
        .build();
    try (DynoJedisClient c = client(config, plain).datastorePassword(password).build()) {
      c.set("k", "v");
      print("get", () -> c.get("k"));
      print("wrongtype", () -> c.hget("k", "f"));
      print("null key", () -> c.get((String) null));
      print("client", c::toString);
      print("topology", () -> c.topology().toString());
      printMBeans();
    }
    // 2. The password carried by the host (as discovery gives it).
    Host withPassword = plain.toBuilder().password(password).build();
    print("host", withPassword::toString);
    try (DynoJedisClient c = client(config, withPassword).build()) {
      print("get via host password", () -> c.get("k"));
      print("topology", () -> c.topology().toString());
      printMBeans();
    }
    // 3. A wrong password (the right one with a suffix) and a dead node with a password.
    print("wrong password", () -> {
      try (DynoJedisClient c =
          client(config, plain).datastorePassword(password + "-wrong").build()) {
        return c.get("k");
      }
    });
    print("unknown ACL user", () -> {
      try (DynoJedisClient c = client(config, plain)
          .datastoreUser("nobody")
          .datastorePassword(password)
          .build()) {
        return c.get("k");
      }
    });
    Host dead = Host.builder("127.0.0.1", deadPort)
        .datastorePort(deadPort)
        .rack("rack1")
        .datacenter("dc1")
        .password(password)
        .build();
    print("dead node", () -> {
      try (DynoJedisClient c =
          client(config.toBuilder().failOnStartupIfNoHosts(false).build(), dead).build()) {
        return c.get("k");
      }
    });
    System.out.println("== done");
  }

  private static DynoJedisClientBuilder client(DynoConfig config, Host host) {
    return DynoJedisClient.builder()
        .config(config)
        .localRack("rack1")
        .hostSupplier(() -> List.of(host))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0L, host)));
  }

  private static void print(String what, Supplier<Object> action) {
    try {
      System.out.println("== " + what + ": " + action.get());
    } catch (RuntimeException e) {
      System.out.println("== " + what + " threw:");
      e.printStackTrace(System.out); // message, stack and every cause
    }
  }

  /** Every attribute of every Dyno MBean (snapshot, configuration ...). */
  private static void printMBeans() throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : server.queryNames(new ObjectName("io.dyno:*"), null)) {
      for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
        System.out.println(
            "== jmx " + name + " " + a.getName() + " = " + server.getAttribute(name, a.getName()));
      }
    }
  }
}
