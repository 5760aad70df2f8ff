package org.searchlab.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.searchlab.core.InvalidRequestException;

/**
 * Who may talk to a {@link SearchServer}: the API credentials that protect every endpoint but
 * {@code /health}, the extra host names a request's {@code Host} may carry, and whether a
 * non-loopback bind without credentials is accepted. Immutable and thread-safe; build one with
 * {@link #builder()} or {@link #toBuilder()}.
 *
 * <p>A credential is an {@code id:secret} pair, as Elasticsearch's API keys are: a client sends it
 * base64-encoded either as {@code Authorization: ApiKey <base64(id:secret)>} (Elasticsearch) or as
 * {@code Authorization: Basic <base64(id:secret)>} (HTTP Basic, user {@code id}, password {@code
 * secret}). Only SHA-256 digests of the pairs are kept, and they are compared in constant time.
 *
 * @param credentialDigests SHA-256 digests of the accepted {@code id:secret} pairs; empty means no
 *     authentication
 * @param allowedHosts host names (lower-case, no port) a request's {@code Host} may name beside
 *     {@code localhost}, IP literals and the bound host; {@code *} accepts any
 * @param insecure whether binding a non-loopback address without credentials is accepted
 */
public record ServerSecurity(
    List<byte[]> credentialDigests, Set<String> allowedHosts, boolean insecure) {

  /** No credentials, no extra host names, loopback only. */
  public static final ServerSecurity DEFAULT = new ServerSecurity(List.of(), Set.of(), false);

  /** The shortest accepted secret, in characters (Elasticsearch's API keys have 22). */
  public static final int MIN_SECRET_LENGTH = 16;

  public ServerSecurity {
    credentialDigests = List.copyOf(credentialDigests);
    Set<String> hosts = new TreeSet<>();
    for (String h : allowedHosts) {
      if (h == null || h.isBlank() || h.contains("/") || h.contains(" ")) {
        throw new InvalidRequestException("allowed host '" + h + "' is not a host name");
      }
      hosts.add(h.trim().toLowerCase(Locale.ROOT));
    }
    allowedHosts = Set.copyOf(hosts);
  }

  /** Whether requests must carry a credential. */
  public boolean authenticates() {
    return !credentialDigests.isEmpty();
  }

  /** Whether {@code idColonSecret} (the decoded credential of a request) is one of the keys. */
  public boolean accepts(byte[] idColonSecret) {
    byte[] d = sha256(idColonSecret);
    boolean ok = false;
    for (byte[] c : credentialDigests) {
      ok |= MessageDigest.isEqual(c, d); // no early exit: every key is compared
    }
    return ok;
  }

  /**
   * Reads an API key file: one {@code id:secret} pair per line; blank lines and lines starting with
   * {@code #} are skipped. The id must be non-empty and the secret at least {@link
   * #MIN_SECRET_LENGTH} characters. Errors name the line number, never its content.
   */
  public static List<byte[]> readKeyFile(Path file) throws IOException {
    List<byte[]> out = new ArrayList<>();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw new InvalidRequestException(
            "API key file " + file + " line " + (i + 1) + " is not 'id:secret'");
      }
      if (line.length() - colon - 1 < MIN_SECRET_LENGTH) {
        throw new InvalidRequestException(
            "API key file "
                + file
                + " line "
                + (i + 1)
                + ": the secret is shorter than "
                + MIN_SECRET_LENGTH
                + " characters");
      }
      out.add(digest(line));
    }
    if (out.isEmpty()) {
      throw new InvalidRequestException("API key file " + file + " holds no 'id:secret' line");
    }
    return out;
  }

  /** The digest under which an {@code id:secret} pair is kept. */
  public static byte[] digest(String idColonSecret) {
    return sha256(idColonSecret.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.credentialDigests = credentialDigests;
    b.allowedHosts = allowedHosts;
    b.insecure = insecure;
    return b;
  }

  /** Builds a {@link ServerSecurity}; {@link #build()} validates. Not thread-safe. */
  public static final class Builder {
    private List<byte[]> credentialDigests;
    private Set<String> allowedHosts;
    private boolean insecure;

    private Builder() {}

    public Builder credentialDigests(List<byte[]> v) {
      credentialDigests = v;
      return this;
    }

    /** Accepts the {@code id:secret} pairs given in clear (tests and embedding programs). */
    public Builder credentials(String... idColonSecret) {
      List<byte[]> d = new ArrayList<>();
      for (String c : idColonSecret) {
        d.add(digest(c));
      }
      credentialDigests = d;
      return this;
    }

    public Builder allowedHosts(Set<String> v) {
      allowedHosts = v;
      return this;
    }

    public Builder insecure(boolean v) {
      insecure = v;
      return this;
    }

    public ServerSecurity build() {
      return new ServerSecurity(credentialDigests, allowedHosts, insecure);
    }
  }
}
