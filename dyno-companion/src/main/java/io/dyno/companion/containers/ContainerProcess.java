package io.dyno.companion.containers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * One server process (a companion or Dynomite node, or a redis-server) in its own container, with
 * the faults a real machine can have: frozen ({@link #pause()}), killed ({@link #kill()}) and
 * restarted on the same port ({@link #restart()}).
 */
public final class ContainerProcess implements AutoCloseable {
  private final String role;
  private final int port;
  private final GenericContainer<?> container;
  private final Duration startupTimeout;

  ContainerProcess(String role, int port, GenericContainer<?> container, Duration startupTimeout) {
    this.role = role;
    this.port = port;
    this.container = container;
    this.startupTimeout = startupTimeout;
  }

  /**
   * Starts a lone redis-server ({@link ContainerImages#redis()}) in its own container on a free
   * loopback port, e.g. for datastore-mode tests. Close it to remove the container.
   */
  public static ContainerProcess startRedis() {
    LocalImages.requirePresent(ContainerImages.redis());
    int port = FreePorts.next();
    Duration timeout = Duration.ofSeconds(60);
    ContainerProcess p = new ContainerProcess(
        "redis 127.0.0.1:" + port,
        port,
        NodeContainers.redis(ContainerImages.redis(), port, timeout),
        timeout);
    try {
      p.container.start();
    } catch (RuntimeException e) {
      p.close();
      throw new IllegalStateException("could not start " + p + ": " + e.getMessage(), e);
    }
    return p;
  }

  /** What runs here, e.g. {@code companion rack1/0} or {@code redis rack2/1}. */
  public String role() {
    return role;
  }

  /** The loopback port its RESP listener binds. */
  public int port() {
    return port;
  }

  /** The Docker container id (null before start). */
  public String containerId() {
    return container.getContainerId();
  }

  /** The Docker image it runs. */
  public String image() {
    return container.getDockerImageName();
  }

  /** Everything the process printed so far. */
  public String logs() {
    return containerId() == null ? "" : container.getLogs();
  }

  /** Freezes the process (docker pause): connections stay open, nothing is answered. */
  public void pause() {
    docker().pauseContainerCmd(requireId("pause")).exec();
  }

  /** Thaws a paused process (docker unpause). */
  public void unpause() {
    docker().unpauseContainerCmd(requireId("unpause")).exec();
  }

  /** Kills the process with SIGKILL (docker kill); the container stays until {@link #restart()} or close. */
  public void kill() {
    String id = requireId("kill");
    if (isPaused()) {
      docker().unpauseContainerCmd(id).exec();
    }
    if (isRunning()) {
      docker().killContainerCmd(id).exec();
    }
  }

  /**
   * Starts the process again in the same container, on the same port, and waits until it answers
   * PING. A running or paused process is killed first.
   */
  public void restart() {
    kill();
    docker().startContainerCmd(requireId("restart")).exec();
    try {
      RespPing.await(role, port, startupTimeout);
    } catch (TimeoutException e) {
      throw new IllegalStateException(e.getMessage() + "; its log:\n" + logs(), e);
    }
  }

  /** Whether the process is running (a paused process is running). */
  public boolean isRunning() {
    Boolean running = state().getRunning();
    return running != null && running;
  }

  /** Whether the process is frozen by {@link #pause()}. */
  public boolean isPaused() {
    Boolean paused = state().getPaused();
    return paused != null && paused;
  }

  @Override
  public String toString() {
    return role + " 127.0.0.1:" + port + " (" + image() + ")";
  }

  GenericContainer<?> container() {
    return container;
  }

  /** Stops and removes the container. Idempotent. */
  @Override
  public void close() {
    if (containerId() != null) {
      container.stop();
    }
  }

  private InspectContainerResponse.ContainerState state() {
    return docker().inspectContainerCmd(requireId("inspect")).exec().getState();
  }

  private String requireId(String action) {
    String id = containerId();
    if (id == null) {
      throw new IllegalStateException(
          "cannot " + action + " " + role + ": its container is not started");
    }
    return id;
  }

  private static DockerClient docker() {
    return DockerClientFactory.instance().client();
  }
}
