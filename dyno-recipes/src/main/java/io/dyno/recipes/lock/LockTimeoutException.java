package io.dyno.recipes.lock;

import io.dyno.core.DynoException;

/** The lock stayed held by someone else for the whole wait bound. */
public final class LockTimeoutException extends DynoException {
  LockTimeoutException(String message) {
    super(message);
  }
}
