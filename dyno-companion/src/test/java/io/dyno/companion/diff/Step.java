package io.dyno.companion.diff;

import java.util.function.Function;

/**
 * One step of a conversation: what it sends to a target and what it makes of the answer, as one
 * line of text (bytes escaped by {@link Wire#escape}) that a transcript stores and a replay compares.
 */
record Step(String name, Function<Target, String> run) {}
