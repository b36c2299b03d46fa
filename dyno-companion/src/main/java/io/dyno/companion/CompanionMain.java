package io.dyno.companion;

/** Command line launcher (skeleton: filled in next). */
public final class CompanionMain {
  private CompanionMain() {}

  public static void main(String[] args) throws Exception {
    throw new UnsupportedOperationException("not yet");
  }
}
