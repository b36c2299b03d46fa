package io.dyno.companion.containers;

import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;

/** Checks on local images, so a missing one fails fast with the command that builds it. */
final class LocalImages {
  private LocalImages() {}

  static boolean present(String image) {
    try {
      DockerClientFactory.instance().client().inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  static void requirePresent(String image) {
    if (!present(image)) {
      throw new IllegalStateException(
          "docker image '" + image + "' is not present and is never pulled: "
              + (image.startsWith("dyno/")
                  ? "run scripts/build-images.sh"
                  : "load it into the local docker first"));
    }
  }
}
