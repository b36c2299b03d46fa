package io.dyno.companion;

import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: starts one {@link CompanionCluster} per test class (shape from
 * {@link CompanionClusterConfig}, defaults 3 racks x 2 nodes, in-memory), injects it into
 * constructors and test methods, clears faults (and restarts stopped nodes) before each test and
 * closes the cluster after the class.
 *
 * <pre>{@code
 * @ExtendWith(CompanionClusterExtension.class)
 * @CompanionClusterConfig(racks = 3, nodesPerRack = 2)
 * class MyTest {
 *   @Test void survivesAStoppedNode(CompanionCluster cluster) { cluster.node("rack1", 0).stop(); ... }
 * }
 * }</pre>
 */
public final class CompanionClusterExtension
    implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(CompanionClusterExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    cluster(context).clearFaults();
  }

  @Override
  public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
    return pc.getParameter().getType() == CompanionCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext pc, ExtensionContext ec)
      throws ParameterResolutionException {
    return cluster(ec);
  }

  private static CompanionCluster cluster(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    ExtensionContext classContext = context;
    while (classContext.getParent().isPresent() && classContext.getTestMethod().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NS)
        .getOrComputeIfAbsent(testClass, c -> new Resource(start(testClass)), Resource.class)
        .cluster;
  }

  private static CompanionCluster start(Class<?> testClass) {
    CompanionClusterConfig cfg = findConfig(testClass);
    CompanionCluster.Builder b = CompanionCluster.builder();
    if (cfg != null) {
      b.racks(cfg.racks())
          .nodesPerRack(cfg.nodesPerRack())
          .backend(cfg.backend())
          .datacenter(cfg.datacenter())
          .hashtag(cfg.hashtag())
          .peerTimeout(Duration.ofMillis(cfg.peerTimeoutMillis()));
    }
    return b.start();
  }

  private static CompanionClusterConfig findConfig(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      CompanionClusterConfig cfg = k.getAnnotation(CompanionClusterConfig.class);
      if (cfg != null) {
        return cfg;
      }
    }
    return null;
  }

  /** Closed by JUnit when the class's store is closed. */
  private static final class Resource implements AutoCloseable {
    final CompanionCluster cluster;

    Resource(CompanionCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public void close() {
      cluster.close();
    }
  }
}
