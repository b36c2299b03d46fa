package io.dyno.core.topology;

/** cluster_describe documents as the real servers send them: line breaks and all. */
final class Samples {
  private Samples() {}

  /** Dynomite's own shape (GET :22222/cluster_describe): 2 racks x 2 nodes, port = PEER port. */
  static final String DYNOMITE = """
      {"dcs": [{"name":"dc1","racks": [{"name":"rack1","servers": [{"name":"127.0.0.1","host":"127.0.0.1","port":8101,"token":0},
      {"name":"127.0.0.1","host":"127.0.0.1","port":8111,"token":2147483647}]},
      {"name":"rack2","servers": [{"name":"127.0.0.1","host":"127.0.0.1","port":8121,"token":0},
      {"name":"127.0.0.1","host":"127.0.0.1","port":8131,"token":2147483647}]}]}]}
      """;

  /** Dynomite-manager's flat shape (GET :8080/REST/v1/admin/cluster_describe): all values strings. */
  static final String MANAGER = """
      [
        {"token":"1383429731","hostname":"ec2-54-1-1-1.compute-1.amazonaws.com","ip":"10.0.1.11","zone":"us-east-1c",
         "rack":"dyno_demo--useast1c","dc":"us-east-1","port":"8102","secure_port":"8103","hashtag":"{}"},
        {"token":"3530913378","hostname":"ec2-54-1-1-2.compute-1.amazonaws.com","ip":"10.0.1.12","zone":"us-east-1c",
         "rack":"dyno_demo--useast1c","dc":"us-east-1","port":"8102","secure_port":"8103","hashtag":"{}"},
        {"token":"1383429731","hostname":"ec2-54-1-1-3.compute-1.amazonaws.com","ip":"10.0.1.13","zone":"us-east-1d",
         "rack":"dyno_demo--useast1d","dc":"us-east-1","port":"8102","secure_port":"8103","hashtag":"{}"},
        {"token":"3530913378","hostname":"ec2-54-1-1-4.compute-1.amazonaws.com","ip":"10.0.1.14","zone":"us-east-1d",
         "rack":"dyno_demo--useast1d","dc":"us-east-1","port":"8102","secure_port":"8103","hashtag":"{}"}
      ]
      """;

  /** Dynomite shape for {@code racks} racks of the given peer ports with tokens 0 and 2147483647 alternating. */
  static String dynomite(String dc, String[] racks, int[][] peerPorts) {
    StringBuilder sb =
        new StringBuilder("{\"dcs\": [{\"name\":\"").append(dc).append("\",\"racks\": [\n");
    for (int r = 0; r < racks.length; r++) {
      if (r > 0) sb.append(",\n");
      sb.append("{\"name\":\"").append(racks[r]).append("\",\"servers\": [");
      for (int s = 0; s < peerPorts[r].length; s++) {
        if (s > 0) sb.append(",\n");
        long token = peerPorts[r].length == 1 ? 0 : (long) s * (0xffffffffL / peerPorts[r].length);
        sb.append("{\"name\":\"127.0.0.1\",\"host\":\"127.0.0.1\",\"port\":")
            .append(peerPorts[r][s])
            .append(",\"token\":")
            .append(token)
            .append('}');
      }
      sb.append("]}");
    }
    return sb.append("]}]}\n").toString();
  }
}
