package io.dyno.jedis.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away certificate authority and server certificates, made by the {@code openssl} command
 * in a temp directory: one certificate for {@code localhost}/{@code 127.0.0.1}, one for another name.
 */
public final class TestCertificates {
  public final Path dir;
  public final Path caCert;
  /** Valid for DNS:localhost and IP:127.0.0.1. */
  public final Path serverCert;

  public final Path serverKey;
  /** Signed by the same CA, but only for DNS:elsewhere.example. */
  public final Path otherNameCert;

  public final Path otherNameKey;

  public TestCertificates() throws IOException, InterruptedException {
    dir = Files.createTempDirectory("dyno-tls");
    caCert = dir.resolve("ca.crt");
    Path caKey = dir.resolve("ca.key");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        caKey.toString(),
        "-out",
        caCert.toString(),
        "-days",
        "2",
        "-subj",
        "/CN=Dyno Test CA");
    serverCert = dir.resolve("server.crt");
    serverKey = dir.resolve("server.key");
    sign(caCert, caKey, serverKey, serverCert, "localhost", "DNS:localhost,IP:127.0.0.1");
    otherNameCert = dir.resolve("other.crt");
    otherNameKey = dir.resolve("other.key");
    sign(caCert, caKey, otherNameKey, otherNameCert, "elsewhere.example", "DNS:elsewhere.example");
  }

  private void sign(Path caCert, Path caKey, Path key, Path cert, String cn, String san)
      throws IOException, InterruptedException {
    Path csr = dir.resolve(cn + ".csr");
    Path ext = dir.resolve(cn + ".ext");
    Files.writeString(ext, "subjectAltName=" + san + "\n");
    openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        csr.toString(),
        "-subj",
        "/CN=" + cn);
    openssl(
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        caCert.toString(),
        "-CAkey",
        caKey.toString(),
        "-CAcreateserial",
        "-out",
        cert.toString(),
        "-days",
        "2",
        "-extfile",
        ext.toString());
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process p = new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(
          "openssl " + String.join(" ", args) + " failed: " + Files.readString(log));
    }
  }

  /** redis-server arguments serving {@code cert}/{@code key}, not asking clients for certificates. */
  public String[] redisTlsArgs(Path cert, Path key) {
    return new String[] {
      "--tls-cert-file",
      cert.toString(),
      "--tls-key-file",
      key.toString(),
      "--tls-ca-cert-file",
      caCert.toString(),
      "--tls-auth-clients",
      "no"
    };
  }

  /** The {@code localhost}/{@code 127.0.0.1} certificate and key as a PKCS#12 key store (password "changeit"). */
  public KeyStore serverKeyStore() throws Exception {
    Path p12 = dir.resolve("server.p12");
    if (!Files.exists(p12)) {
      openssl(
          "pkcs12",
          "-export",
          "-in",
          serverCert.toString(),
          "-inkey",
          serverKey.toString(),
          "-out",
          p12.toString(),
          "-passout",
          "pass:changeit",
          "-name",
          "server");
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      ks.load(in, "changeit".toCharArray());
    }
    return ks;
  }

  /** A socket factory that trusts exactly this CA. */
  public SSLSocketFactory trustingSocketFactory() throws Exception {
    return trustingContext().getSocketFactory();
  }

  /** A TLS context that trusts the test CA only. */
  public SSLContext trustingContext() throws Exception {
    X509Certificate ca;
    try (InputStream in = Files.newInputStream(caCert)) {
      ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("dyno-test-ca", ca);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
