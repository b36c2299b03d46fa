package io.dyno.recipes.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * A resource that accepts a write only with a fencing token at least as high as any it has seen,
 * the way a storage service guarded by a lock should. Records what it rejected.
 */
public final class FencedResource {
  private long highest = Long.MIN_VALUE;
  private final List<String> accepted = new ArrayList<>();
  private final List<String> rejected = new ArrayList<>();

  public synchronized boolean write(long token, String value) {
    if (token < highest) {
      rejected.add(token + ":" + value);
      return false;
    }
    highest = token;
    accepted.add(token + ":" + value);
    return true;
  }

  public synchronized List<String> accepted() {
    return List.copyOf(accepted);
  }

  public synchronized List<String> rejected() {
    return List.copyOf(rejected);
  }
}
