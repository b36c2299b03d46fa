package io.dyno.eureka.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * One Eureka service URL as {@code EurekaHostSupplier} asks it: the request URI of the
 * application's instances, the URL's {@code user:password@} turned into a basic-authorization
 * header, and a text to show in messages, which never holds the password.
 *
 * @param uri {@code {serviceUrl}/apps/{APP}}, without credentials
 * @param authorization the {@code Authorization} header value, or null when the URL has none
 * @param shown the URI as messages show it
 */
public record ServiceUrl(URI uri, String authorization, String shown) {
  /**
   * Parses {@code serviceUrl} for {@code application}.
   *
   * @throws IllegalArgumentException naming the URL, password masked, when it is not an http(s)
   *     URL with a host
   */
  public static ServiceUrl of(String serviceUrl, String application) {
    URI base;
    try {
      base = new URI(serviceUrl.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "Eureka service URL is not a URI: '" + mask(serviceUrl) + "' (" + e.getReason() + ")");
    }
    String scheme = base.getScheme();
    if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)) {
      throw new IllegalArgumentException(
          "Eureka service URL must be http or https: '" + mask(serviceUrl) + "'");
    }
    if (base.getHost() == null) {
      throw new IllegalArgumentException(
          "Eureka service URL has no host: '" + mask(serviceUrl) + "'");
    }
    String authorization = null;
    if (base.getRawUserInfo() != null) {
      String userInfo = URLDecoder.decode(base.getRawUserInfo(), StandardCharsets.UTF_8);
      authorization =
          "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }
    String path = base.getRawPath() == null ? "" : base.getRawPath();
    if (!path.endsWith("/")) {
      path += "/";
    }
    String appPath =
        path + "apps/" + URLEncoder.encode(application, StandardCharsets.UTF_8).replace("+", "%20");
    String authority = base.getHost().contains(":") ? "[" + base.getHost() + "]" : base.getHost();
    if (base.getPort() != -1) {
      authority += ":" + base.getPort();
    }
    URI uri = URI.create(scheme.toLowerCase() + "://" + authority + appPath);
    return new ServiceUrl(uri, authorization, uri.toString());
  }

  /** The URL with any password replaced, for messages. */
  private static String mask(String url) {
    return url.replaceAll("(?<=://)([^/@:]*):[^/@]*@", "$1:***@");
  }
}
