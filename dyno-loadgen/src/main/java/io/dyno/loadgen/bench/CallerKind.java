package io.dyno.loadgen.bench;

/** What a load caller does: only reads, only writes, or both ({@code readPercent}% GET). */
enum CallerKind {
  READ,
  WRITE,
  MIXED;

  /** How many callers of this kind the settings ask for (virtual callers replace all three kinds). */
  int wanted(BenchConfig c) {
    if (c.virtualThreads > 0) {
      return this == MIXED ? c.virtualThreads : 0; // the read percent mixes GET and SET
    }
    return switch (this) {
      case READ -> c.readers;
      case WRITE -> c.writers;
      case MIXED -> c.threads;
    };
  }
}
