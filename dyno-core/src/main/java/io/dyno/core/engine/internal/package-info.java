/**
 * What a driver builds on (dyno-jedis, exported to it alone): the engine ({@link
 * io.dyno.core.engine.internal.DynoEngine}, {@link io.dyno.core.engine.internal.DynoExecutor}), the
 * call as data ({@link io.dyno.core.engine.internal.CallSpec}), the work of an attempt
 * ({@link io.dyno.core.engine.internal.Operation} and its asynchronous and split forms), and the
 * connections a driver gives the engine ({@link io.dyno.core.engine.internal.NodeConnectionFactory}).
 * Not an application's API: an application uses a driver's client.
 */
package io.dyno.core.engine.internal;
