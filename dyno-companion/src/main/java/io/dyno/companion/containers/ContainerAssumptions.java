package io.dyno.companion.containers;

import io.dyno.companion.Backend;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/**
 * JUnit 5 assumptions for container tests: they skip (never silently pass) with a message saying
 * what is missing. {@code scripts/test.sh} fails the build when a container test was skipped, so
 * CI proves they ran; only the real-Dynomite tests may skip there.
 */
public final class ContainerAssumptions {
  private ContainerAssumptions() {}

  /** Skips unless Docker answers and the images for {@code server} (and Redis) are present. */
  public static void assumeImagesAvailable(ContainerCluster.Server server, Backend backend) {
    assumeDocker();
    String image = switch (server) {
      case COMPANION -> ContainerImages.companion();
      case DYNOMITE -> {
        Assumptions.assumeTrue(
            ContainerImages.dynomite().isPresent(), ContainerImages.dynomiteHint());
        yield ContainerImages.dynomite().get();
      }
    };
    assumeImage(image);
    if (backend == Backend.REDIS) {
      assumeImage(ContainerImages.redis());
    }
  }

  /** Skips unless Docker answers (with the Testcontainers settings of docker-here.md). */
  public static void assumeDocker() {
    Assumptions.assumeTrue(
        DockerClientFactory.instance().isDockerAvailable(),
        "Docker is not available: run scripts/setup-test-env.sh (dockerd without a bridge), "
            + "and give surefire TESTCONTAINERS_RYUK_DISABLED=true, TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1");
  }

  /** Skips unless Docker answers and the Redis image is present. */
  public static void assumeRedisImageAvailable() {
    assumeDocker();
    assumeImage(ContainerImages.redis());
  }

  /** Skips unless a real Dynomite image is configured and present (and the Redis image). */
  public static void assumeDynomiteAvailable() {
    Assumptions.assumeTrue(ContainerImages.dynomite().isPresent(), ContainerImages.dynomiteHint());
    assumeImagesAvailable(ContainerCluster.Server.DYNOMITE, Backend.REDIS);
  }

  private static void assumeImage(String image) {
    Assumptions.assumeTrue(
        LocalImages.present(image),
        "docker image '" + image + "' is missing (images are never pulled): "
            + (image.startsWith("dyno/")
                ? "run scripts/build-images.sh"
                : "load it into the local docker"));
  }
}
