package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.CallOptions;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.search.aggr.AggregationBuilder;
import redis.clients.jedis.search.schemafields.SchemaField;
import redis.clients.jedis.search.schemafields.TextField;

/**
 * Calls every public method of {@link UnifiedJedis} and of {@link DynoJedisClient} on a client of a
 * running (in-memory companion) cluster, with plausible arguments built from each parameter's type,
 * and fails if any call ends in a {@link NullPointerException} from the library's own code: before
 * the client had a connection provider, the Jedis methods that take a connection of their own
 * (ftAggregateIterator, ...) failed that way. Any other outcome (a result, a refusal naming the
 * command, a Redis error) is fine here: other tests check what each command does.
 *
 * <p>Methods whose arguments cannot be built from their types (abstract callbacks, types without a
 * usable public constructor) are skipped and counted; no argument is ever null, so an NPE here is
 * never the test's own doing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EveryPublicMethodTest {
  /** Skipped by name, with the reason: they end the client or block the calling thread by design. */
  private static final Map<String, String> SKIPPED_BY_NAME = Map.of(
      "close", "closes the client under test",
      "wait", "Object.wait blocks",
      "notify", "Object monitor method",
      "notifyAll", "Object monitor method");

  private CompanionCluster cluster;
  private DynoJedisClient client;
  private DynoJedisClient bounded;
  private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "every-public-method");
    t.setDaemon(true);
    return t;
  });

  @BeforeAll
  void start() {
    cluster = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("every-method")
            .minConnsPerHost(1)
            .maxConnsPerHost(2)
            .socketTimeout(Duration.ofMillis(500))
            .retryPolicy(RetryPolicy.runOnce())
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
    // Every call through the view is bounded by a deadline; the future's timeout below is the
    // backstop.
    bounded = client.withOptions(CallOptions.defaults().withDeadline(Duration.ofSeconds(1)));
  }

  @AfterAll
  void stop() {
    calls.shutdownNow();
    client.close();
    cluster.close();
  }

  @Test
  void noPublicMethodFailsWithANullPointerExceptionFromTheLibrary() throws Exception {
    List<Method> methods = publicMethods();
    Map<String, String> npes = new TreeMap<>();
    Map<String, String> hung = new TreeMap<>();
    List<String> unbuildable = new ArrayList<>();
    List<String> refusedForNoProvider = new ArrayList<>();
    int called = 0;
    for (Method m : methods) {
      Object[] args;
      try {
        args = arguments(m);
      } catch (Unbuildable u) {
        unbuildable.add(signature(m) + " (" + u.getMessage() + ")");
        continue;
      }
      called++;
      Future<?> f = calls.submit(() -> {
        try {
          return m.invoke(bounded, args);
        } catch (InvocationTargetException e) {
          throw e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause());
        }
      });
      try {
        f.get(10, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        f.cancel(true);
        hung.put(signature(m), "no outcome within 10 s");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof NullPointerException npe) {
          npes.put(
              signature(m),
              npe + " at " + Arrays.stream(npe.getStackTrace()).limit(3).toList());
        } else if (cause instanceof UnsupportedCommandException u
            && u.getMessage().contains("connection provider")) {
          refusedForNoProvider.add(signature(m) + ": " + u.getMessage());
        }
      }
    }
    System.out.printf(
        "EveryPublicMethodTest: %d public methods, %d called, %d skipped (arguments not buildable),"
            + " %d skipped by name %s, %d refused for want of a connection provider%n",
        methods.size() + SKIPPED_BY_NAME.size(),
        called,
        unbuildable.size(),
        SKIPPED_BY_NAME.size(),
        SKIPPED_BY_NAME.keySet(),
        refusedForNoProvider.size());
    unbuildable.forEach(u -> System.out.println("  not buildable: " + u));
    refusedForNoProvider.forEach(r -> System.out.println("  refused: " + r));

    assertThat(npes).as("methods that failed with a NullPointerException").isEmpty();
    assertThat(hung).as("methods that neither returned nor failed in time").isEmpty();
    assertThat(called).as("methods actually called").isGreaterThan(700);
    // The provider's refusal names the Jedis method that asked for a connection.
    assertThat(refusedForNoProvider)
        .anySatisfy(r -> assertThat(r)
            .startsWith("ftAggregateIterator(")
            .contains("UnifiedJedis.ftAggregateIterator is not supported by DynoJedisClient"));
  }

  private static List<Method> publicMethods() {
    Map<String, Method> bySignature = new LinkedHashMap<>();
    for (Class<?> c : List.of(DynoJedisClient.class, UnifiedJedis.class)) {
      for (Method m : c.getMethods()) {
        if (Modifier.isStatic(m.getModifiers())
            || m.isBridge()
            || m.isSynthetic()
            || SKIPPED_BY_NAME.containsKey(m.getName())) {
          continue;
        }
        // DynoJedisClient's (the override) is seen first; invoking either reaches the same code.
        bySignature.putIfAbsent(m.getName() + Arrays.toString(m.getParameterTypes()), m);
      }
    }
    List<Method> out = new ArrayList<>(bySignature.values());
    out.sort(Comparator.comparing(EveryPublicMethodTest::signature));
    return out;
  }

  private static String signature(Method m) {
    StringBuilder b = new StringBuilder(m.getName()).append('(');
    Class<?>[] p = m.getParameterTypes();
    for (int i = 0; i < p.length; i++) {
      b.append(i == 0 ? "" : ", ").append(p[i].getSimpleName());
    }
    return b.append(')').toString();
  }

  private static Object[] arguments(Method m) {
    Type[] types = m.getGenericParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = value(types[i], 0);
    }
    return args;
  }

  /** Thrown when no plausible non-null value of a type can be built. */
  private static final class Unbuildable extends RuntimeException {
    Unbuildable(String message) {
      super(message, null, false, false);
    }
  }

  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

  private static Class<?> rawClass(Type t) {
    if (t instanceof Class<?> c) {
      return c;
    }
    if (t instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    if (t instanceof GenericArrayType g) {
      return rawClass(g.getGenericComponentType()).arrayType();
    }
    if (t instanceof TypeVariable<?> v) {
      return rawClass(v.getBounds()[0]);
    }
    return rawClass(((WildcardType) t).getUpperBounds()[0]);
  }

  /** A plausible, non-null value of {@code type}; {@code depth} bounds constructor recursion. */
  private static Object value(Type type, int depth) {
    if (type instanceof ParameterizedType p) {
      Class<?> raw = (Class<?>) p.getRawType();
      Type[] a = p.getActualTypeArguments();
      if (raw == Map.Entry.class) {
        return Map.entry(value(a[0], depth), value(a[1], depth));
      }
      if (Map.class.isAssignableFrom(raw)) {
        return new LinkedHashMap<>(Map.of(value(a[0], depth), value(a[1], depth)));
      }
      if (Set.class.isAssignableFrom(raw)) {
        return new HashSet<>(List.of(value(a[0], depth)));
      }
      if (Collection.class.isAssignableFrom(raw) || raw == Iterable.class) {
        return new ArrayList<>(List.of(value(a[0], depth)));
      }
      return value(raw, depth);
    }
    if (type instanceof WildcardType w) {
      return value(w.getUpperBounds()[0], depth);
    }
    if (type instanceof TypeVariable<?> v) {
      return value(v.getBounds()[0], depth);
    }
    if (type instanceof GenericArrayType g) {
      Object element = value(g.getGenericComponentType(), depth);
      Object arr = Array.newInstance(rawClass(g.getGenericComponentType()), 1);
      Array.set(arr, 0, element);
      return arr;
    }
    Class<?> c = (Class<?>) type;
    if (c == String.class || c == Object.class || c == CharSequence.class) {
      return "k";
    }
    if (c == byte[].class) {
      return KEY.clone();
    }
    if (c == int.class || c == Integer.class) {
      return 1;
    }
    if (c == long.class || c == Long.class) {
      return 1L;
    }
    if (c == double.class || c == Double.class) {
      return 1.0;
    }
    if (c == float.class || c == Float.class) {
      return 1.0f;
    }
    if (c == short.class || c == Short.class) {
      return (short) 1;
    }
    if (c == boolean.class || c == Boolean.class) {
      return true;
    }
    if (c == ProtocolCommand.class) {
      return Protocol.Command.GET;
    }
    if (c == AggregationBuilder.class) {
      // A bare builder is refused by the aggregate iterator before it needs a connection; a cursor
      // is what it wants.
      return new AggregationBuilder("*").cursor(10, 1000);
    }
    if (c == JedisPubSub.class) {
      return new JedisPubSub() {};
    }
    if (c == BinaryJedisPubSub.class) {
      return new BinaryJedisPubSub() {};
    }
    if (c == SchemaField.class) {
      return new TextField("k");
    }
    if (c == CallOptions.class) {
      return CallOptions.defaults();
    }
    if (c == Class.class) {
      return String.class;
    }
    if (c == Number.class) {
      return 1;
    }
    if (c == Map.Entry.class) {
      return Map.entry("k", "0");
    }
    if (c == Duration.class) {
      return Duration.ofMillis(100);
    }
    if (c.isArray()) {
      Object arr = Array.newInstance(c.getComponentType(), 1);
      Array.set(arr, 0, value(c.getComponentType(), depth));
      return arr;
    }
    if (c.isEnum()) {
      Object[] constants = c.getEnumConstants();
      if (constants.length == 0) {
        throw new Unbuildable(c.getSimpleName() + " has no constants");
      }
      return constants[0];
    }
    if (Map.class.isAssignableFrom(c)) {
      return new LinkedHashMap<>(Map.of("k", "v"));
    }
    if (Collection.class.isAssignableFrom(c)) {
      return new ArrayList<>(List.of("k"));
    }
    if (c.isInterface() || Modifier.isAbstract(c.getModifiers()) || c.isPrimitive()) {
      throw new Unbuildable(c.getSimpleName() + " is abstract");
    }
    if (depth > 2) {
      throw new Unbuildable(c.getSimpleName() + " nests too deep");
    }
    Constructor<?>[] ctors = c.getConstructors();
    Arrays.sort(ctors, Comparator.comparingInt(Constructor::getParameterCount));
    for (Constructor<?> ctor : ctors) {
      try {
        Type[] pt = ctor.getGenericParameterTypes();
        Object[] a = new Object[pt.length];
        for (int i = 0; i < pt.length; i++) {
          a[i] = value(pt[i], depth + 1);
        }
        return ctor.newInstance(a);
      } catch (ReflectiveOperationException | RuntimeException e) {
        // try the next constructor
      }
    }
    throw new Unbuildable(c.getSimpleName() + " has no public constructor this test can call");
  }
}
