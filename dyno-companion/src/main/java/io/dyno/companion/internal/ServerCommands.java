package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.b;

import io.dyno.companion.internal.Keyspace.Entry;
import io.netty.handler.codec.redis.RedisMessage;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Server-level commands clients send at start-up or for scripting: PING, INFO, CONFIG GET and SCRIPT
 * bookkeeping. The memory backend keeps script hashes so SCRIPT LOAD/EXISTS agree, but runs no Lua.
 */
final class ServerCommands implements CommandFamily {
  private final Keyspace ks;
  private final Set<String> scripts = new HashSet<>();

  ServerCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "PING":
        return a.length > 1 ? Resp.bulk(a[1]) : Resp.PONG;
      case "INFO": {
        int expires = 0;
        for (Entry e : ks.data.values()) if (e.expireAt != 0) expires++;
        String s =
            "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\nexecutable:dyno-companion\r\n"
                + "# Clients\r\nconnected_clients:1\r\n# Keyspace\r\n"
                + (ks.data.isEmpty()
                    ? ""
                    : "db0:keys=" + ks.data.size() + ",expires=" + expires + ",avg_ttl=0\r\n");
        return Resp.bulk(s);
      }
      case "CONFIG":
        return configGet(a);
      case "SCRIPT":
        return script(a);
      case "EVAL":
      case "EVALSHA":
        return Resp.err("ERR the companion's in-memory backend cannot run Lua scripts (" + cmd
            + "); use Backend.REDIS");
      default:
        return null;
    }
  }

  private RedisMessage configGet(byte[][] a) {
    arity(a, "CONFIG", 3, false);
    Map<String, String> cfg = new LinkedHashMap<>();
    cfg.put("save", "");
    cfg.put("appendonly", "no");
    cfg.put("maxmemory", "0");
    cfg.put("maxmemory-policy", "noeviction");
    cfg.put("databases", "1");
    cfg.put("port", "0");
    List<byte[]> out = new ArrayList<>();
    for (int i = 2; i < a.length; i++) {
      for (var e : cfg.entrySet()) {
        if (Glob.matches(b(Resp.str(a[i]).toLowerCase()), b(e.getKey()))) {
          out.add(b(e.getKey()));
          out.add(b(e.getValue()));
        }
      }
    }
    return Resp.bulkArray(out);
  }

  private RedisMessage script(byte[][] a) {
    arity(a, "SCRIPT", 2, false);
    String sub = Resp.upper(a[1]);
    switch (sub) {
      case "LOAD" -> {
        arity(a, "SCRIPT|LOAD", 3, true);
        String sha = sha1(a[2]);
        scripts.add(sha);
        return Resp.bulk(sha);
      }
      case "EXISTS" -> {
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++)
          out.add(Resp.integer(scripts.contains(Resp.str(a[i]).toLowerCase()) ? 1 : 0));
        return Resp.array(out);
      }
      case "FLUSH" -> {
        scripts.clear();
        return Resp.OK;
      }
      case "KILL" -> {
        return Resp.err("NOTBUSY No scripts in execution right now.");
      }
      default -> {
        return Resp.err("ERR unknown subcommand '" + Resp.str(a[1]) + "'. Try SCRIPT HELP.");
      }
    }
  }

  private static String sha1(byte[] b) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(b);
      StringBuilder sb = new StringBuilder();
      for (byte x : d) sb.append(String.format("%02x", x & 0xff));
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
