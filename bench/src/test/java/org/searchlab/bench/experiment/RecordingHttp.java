package org.searchlab.bench.experiment;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An {@link HttpClient} that sends nothing: it records every request (method, address, content type
 * and body bytes) and answers each with the body {@code answer} gives for it, status 200.
 * Thread-safe: requests are recorded under a lock, in the order they arrive.
 */
final class RecordingHttp extends HttpClient {
  private final Function<HttpRequest, String> answer;
  private final List<String> transcript = new ArrayList<>();

  RecordingHttp(Function<HttpRequest, String> answer) {
    this.answer = answer;
  }

  /** Every request so far, each as {@code METHOD uri [content-type]} and its body on a line. */
  synchronized List<String> transcript() {
    return List.copyOf(transcript);
  }

  /** A request as the transcript writes it. */
  static String describe(HttpRequest r) {
    String type = r.headers().firstValue("Content-Type").orElse("-");
    return r.method() + " " + r.uri() + " [" + type + "]\n" + body(r);
  }

  /** The bytes a request's body publisher sends, as UTF-8 (empty when it has no body). */
  static String body(HttpRequest r) {
    Optional<HttpRequest.BodyPublisher> p = r.bodyPublisher();
    if (p.isEmpty()) {
      return "";
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CountDownLatch done = new CountDownLatch(1);
    p.get()
        .subscribe(
            new Flow.Subscriber<ByteBuffer>() {
              @Override
              public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
              }

              @Override
              public void onNext(ByteBuffer b) {
                byte[] a = new byte[b.remaining()];
                b.get(a);
                out.writeBytes(a);
              }

              @Override
              public void onError(Throwable t) {
                done.countDown();
              }

              @Override
              public void onComplete() {
                done.countDown();
              }
            });
    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest req, HttpResponse.BodyHandler<T> handler)
      throws IOException {
    synchronized (this) {
      transcript.add(describe(req));
    }
    byte[] bytes = answer.apply(req).getBytes(StandardCharsets.UTF_8);
    HttpResponse.ResponseInfo info =
        new HttpResponse.ResponseInfo() {
          @Override
          public int statusCode() {
            return 200;
          }

          @Override
          public HttpHeaders headers() {
            return HttpHeaders.of(Map.of(), (a, b) -> true);
          }

          @Override
          public Version version() {
            return Version.HTTP_1_1;
          }
        };
    HttpResponse.BodySubscriber<T> sub = handler.apply(info);
    sub.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {}
        });
    sub.onNext(List.of(ByteBuffer.wrap(bytes)));
    sub.onComplete();
    T body = sub.getBody().toCompletableFuture().join();
    return new HttpResponse<>() {
      @Override
      public int statusCode() {
        return 200;
      }

      @Override
      public HttpRequest request() {
        return req;
      }

      @Override
      public Optional<HttpResponse<T>> previousResponse() {
        return Optional.empty();
      }

      @Override
      public HttpHeaders headers() {
        return info.headers();
      }

      @Override
      public T body() {
        return body;
      }

      @Override
      public Optional<SSLSession> sslSession() {
        return Optional.empty();
      }

      @Override
      public java.net.URI uri() {
        return req.uri();
      }

      @Override
      public Version version() {
        return Version.HTTP_1_1;
      }
    };
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest req, HttpResponse.BodyHandler<T> handler) {
    try {
      return CompletableFuture.completedFuture(send(req, handler));
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(
      HttpRequest req,
      HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> push) {
    return sendAsync(req, handler);
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.empty();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.empty();
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NEVER;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.empty();
  }

  @Override
  public SSLContext sslContext() {
    try {
      return SSLContext.getDefault();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public SSLParameters sslParameters() {
    return new SSLParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return Optional.empty();
  }

  @Override
  public Version version() {
    return Version.HTTP_1_1;
  }

  @Override
  public Optional<Executor> executor() {
    return Optional.empty();
  }
}
