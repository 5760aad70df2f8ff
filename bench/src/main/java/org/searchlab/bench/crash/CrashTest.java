// Over 500 lines would be a reason to split; the journal, feeders and checks share one model.
package org.searchlab.bench.crash;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.bench.experiment.ServerAdmin;
import org.searchlab.bench.experiment.ServerOptions;
import org.searchlab.bench.experiment.ServerProcess;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.VectorQuantization;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.es.EsDocuments;
import org.searchlab.testing.PossibleDocuments;
import org.searchlab.testing.disk.PowerLossCycles;

/**
 * The crash test: a {@code serve} child on a fresh data directory, {@code threads} feeders sending
 * {@code _bulk} puts, partial updates and deletes, a SIGKILL at a seeded moment of every cycle (one
 * cycle ends with SIGTERM instead), a restart, and an exact check of every id.
 *
 * <p>The journal ({@link PossibleDocuments}): each feeder owns the ids {@code ≡ t (mod threads)},
 * so the writes of one id are sequential and its expected state is known exactly. An acknowledged
 * operation sets it; an operation whose response never came (the kill) leaves two possible states,
 * the old and the new, until the check after the restart finds which one the server kept. A
 * document is compared whole (every field and every vector component), so one that mixed two
 * versions fails the check.
 *
 * <p>With several stores ({@code mutable,segmented}) the server holds one index of each kind
 * ({@code crash-mutable}, {@code crash-segmented}, created by {@code PUT /{index}} with {@code
 * index.store}), every bulk mixes operations on both, and each index is checked id by id: a kill
 * must lose nothing acknowledged in any of them. With one store the index is the server's default.
 *
 * <p>In the first cycle a second server is started on the same directory; it must refuse.
 *
 * <p>With {@code powerLoss}, the server runs on a disk that forgets ({@link PowerLossServerChild})
 * and each kill is a simulated power cut instead: unforced writes are dropped, torn or skipped as
 * {@link PowerLossCycles#chooseCut} draws, and the restart opens the cut's image. The check is the
 * same.
 *
 * <p>Not thread-safe: one {@link #run()} per instance; the feeders it starts share the journal by
 * owning disjoint ids.
 */
public final class CrashTest {
  /** The settings of a run. */
  public record Settings(
      String store,
      int cycles,
      int threads,
      int ids,
      int dimension,
      long seed,
      Duration minUptime,
      Duration maxUptime,
      Path dataDir,
      String heap,
      VectorQuantization quantization,
      boolean powerLoss) {
    public Settings {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(quantization, "quantization");
      if (cycles < 1 || threads < 1 || ids < threads || dimension < 2) {
        throw new IllegalArgumentException(
            "need cycles ≥ 1, threads ≥ 1, ids ≥ threads, dimension ≥ 2: " + this);
      }
    }
  }

  /** The outcome: counts, restart times and the first violations found. */
  public record Summary(
      long acknowledged, long checked, long violations, List<Long> restartMillis, boolean refused) {
    public boolean passed() {
      return violations == 0 && refused;
    }
  }

  private final Settings settings;
  private final PrintStream out;
  private final List<String> stores;
  private final List<String> indexes = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** expected[index]: each id's possible states, one when certain. */
  private final PossibleDocuments[] expected;

  private final AtomicLong acknowledged = new AtomicLong();
  private long checked;
  private long violations;

  public CrashTest(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    this.stores = List.of(settings.store().split(","));
    if (stores.size() == 1) {
      indexes.add(ServerConfig.DEFAULT.indexName());
    } else {
      for (String s : stores) {
        indexes.add("crash-" + s);
      }
    }
    this.expected = new PossibleDocuments[indexes.size()];
    for (int x = 0; x < expected.length; x++) {
      expected[x] = new PossibleDocuments(settings.ids());
    }
  }

  /** Creates the indexes of several stores (each {@code PUT} once; a restart finds them). */
  private void createIndexes(URI base) throws IOException, InterruptedException {
    if (stores.size() == 1) {
      return;
    }
    for (int i = 0; i < indexes.size(); i++) {
      String body =
          "{\"settings\":{\"index\":{\"number_of_shards\":1,\"number_of_replicas\":0,"
              + "\"store\":\""
              + stores.get(i)
              + "\"}},\"mappings\":"
              + Json.MAPPER.writeValueAsString(
                  org.searchlab.core.mapping.MappingJson.render(
                      org.searchlab.core.mapping.Mapping.product(settings.dimension())))
              + "}";
      ServerAdmin.putIndex(http, base, indexes.get(i), body);
    }
  }

  /** Runs every cycle and the final check; prints one line per cycle and a summary. */
  public Summary run() throws IOException, InterruptedException {
    Files.createDirectories(settings.dataDir());
    SplittableRandom random = new SplittableRandom(settings.seed());
    ServerOptions options =
        ServerOptions.defaults(stores.get(0), settings.dimension()).toBuilder()
            .quantization(settings.quantization())
            .build();
    Path log = settings.dataDir().resolveSibling(settings.dataDir().getFileName() + "-server.log");
    List<Long> restarts = new ArrayList<>();
    boolean refused = false;
    int sigtermCycle = settings.cycles() / 2;
    // With power loss, cycle c's server runs on a forgetful disk over disk-c; a cut's image is the
    // next cycle's disk (a SIGTERM leaves the disk whole, and the next cycle keeps it).
    Path disk = settings.dataDir().resolve("disk-0");
    for (int cycle = 0; cycle <= settings.cycles(); cycle++) {
      // The real path: the forgetful disk models only what lies below its own real directory.
      Path realDisk = settings.powerLoss() ? Files.createDirectories(disk).toRealPath() : null;
      Path dataDir = settings.powerLoss() ? realDisk.resolve("data") : settings.dataDir();
      long t0 = System.nanoTime();
      ServerProcess server =
          settings.powerLoss()
              ? ServerProcess.startWrapped(
                  PowerLossServerChild.class.getName(),
                  List.of(realDisk.toString()),
                  options,
                  dataDir,
                  settings.heap(),
                  log)
              : ServerProcess.start(options, dataDir, settings.heap(), log);
      long startMs = (System.nanoTime() - t0) / 1_000_000;
      if (cycle > 0) {
        restarts.add(startMs);
      }
      try {
        if (cycle == 0) {
          createIndexes(server.base());
        }
        long before = violations;
        long checks = check(server.base());
        if (cycle == settings.cycles()) {
          out.printf(
              "final check: %d ids checked, %d violations, restart %d ms%n",
              checks, violations - before, startMs);
          break;
        }
        if (cycle == 0) {
          refused = secondServerRefused(options, log, dataDir);
        }
        long ackedBefore = acknowledged.get();
        long uptime =
            settings.minUptime().toMillis()
                + random.nextLong(
                    settings.maxUptime().toMillis() - settings.minUptime().toMillis() + 1);
        boolean sigterm = cycle == sigtermCycle;
        PowerCutOrder cut =
            settings.powerLoss() && !sigterm
                ? new PowerCutOrder(
                    random.nextLong(), settings.dataDir().resolve("disk-" + (cycle + 1)))
                : null;
        feedThenStop(server, random.nextLong(), uptime, sigterm, cut);
        out.printf(
            "cycle %2d: restart %5d ms, %6d ids checked, %d violations, %6d ops acknowledged"
                + " in %5d ms, then %s%n",
            cycle,
            startMs,
            checks,
            violations - before,
            acknowledged.get() - ackedBefore,
            uptime,
            sigterm ? "SIGTERM" : cut != null ? "power cut " + cut.kind() : "SIGKILL");
        if (cut != null) {
          disk = cut.image();
        }
      } finally {
        server.kill();
      }
    }
    List<Long> sorted = new ArrayList<>(restarts);
    sorted.sort(null);
    out.printf(
        "summary: store%s %s,%s %d cycles, %d operations acknowledged, %d document checks,"
            + " %d violations, second server %s, restart ms min %d median %d max %d%n",
        stores.size() > 1 ? "s" : "",
        settings.store(),
        settings.powerLoss() ? " power loss," : "",
        settings.cycles(),
        acknowledged.get(),
        checked,
        violations,
        refused ? "refused" : "NOT refused",
        sorted.isEmpty() ? 0 : sorted.get(0),
        sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
        sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
    return new Summary(acknowledged.get(), checked, violations, restarts, refused);
  }

  private boolean secondServerRefused(ServerOptions options, Path log, Path dataDir)
      throws InterruptedException {
    Path secondLog = log.resolveSibling(log.getFileName() + ".second");
    try (ServerProcess second = ServerProcess.start(options, dataDir, settings.heap(), secondLog)) {
      out.println("VIOLATION: a second server opened the same data directory");
      violations++;
      return false;
    } catch (IOException e) {
      String said;
      try {
        said = Files.readString(secondLog);
      } catch (IOException unreadable) {
        said = String.valueOf(e.getMessage());
      }
      boolean inUse = said.contains("is in use by another running store");
      out.println(
          "second server on the same directory: "
              + (inUse
                  ? "refused (data directory in use)"
                  : "failed otherwise: " + e.getMessage()));
      return inUse;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Feeding

  /**
   * A power cut ordered from a forgetful server child ({@link PowerLossServerChild}): the seed that
   * chooses the cut and the directory its image goes to.
   */
  private record PowerCutOrder(long seed, Path image) {
    /** The cut the child draws from the seed, as it draws it. */
    String kind() {
      return PowerLossCycles.chooseCut(new SplittableRandom(seed)).toString();
    }
  }

  /**
   * Feeds for {@code uptimeMs}, then stops the server: SIGTERM, a power cut ({@code cut} not null)
   * or SIGKILL.
   */
  private void feedThenStop(
      ServerProcess server, long seed, long uptimeMs, boolean sigterm, PowerCutOrder cut)
      throws IOException, InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> feeders = new ArrayList<>();
    SplittableRandom seeds = new SplittableRandom(seed);
    for (int t = 0; t < settings.threads(); t++) {
      int owner = t;
      SplittableRandom r = seeds.split();
      Thread th = new Thread(() -> feed(server.base(), owner, r, stop), "crashtest-feeder-" + t);
      th.setDaemon(true);
      feeders.add(th);
      th.start();
    }
    Thread.sleep(uptimeMs);
    try {
      if (sigterm) {
        server.close(); // SIGTERM: the server closes its store (snapshot or commit) and exits
      } else if (cut != null) {
        server.tell("cut " + cut.seed() + " " + cut.image());
        int status = server.awaitExit(Duration.ofSeconds(120));
        if (status != 0) {
          throw new IOException(
              "the power-loss child "
                  + (status < 0 ? "did not halt" : "exited with status " + status)
                  + " after the cut; see the server log");
        }
      } else {
        server.kill();
      }
    } finally {
      server.kill(); // a no-op unless the cut failed
      stop.set(true);
      for (Thread th : feeders) {
        th.join();
      }
    }
  }

  /** One feeder: bulks of 1–40 operations on its own ids until the server goes away. */
  private void feed(URI base, int owner, SplittableRandom r, AtomicBoolean stop) {
    int threads = settings.threads();
    int owned = (settings.ids() - owner + threads - 1) / threads;
    while (!stop.get()) {
      int n = 1 + r.nextInt(40);
      StringBuilder body = new StringBuilder();
      int[] ids = new int[n];
      int[] where = new int[n];
      Document[] after = new Document[n];
      boolean[][] used = new boolean[indexes.size()][settings.ids()];
      int count = 0;
      for (int i = 0; i < n; i++) {
        int id = owner + threads * r.nextInt(owned);
        int x = r.nextInt(indexes.size());
        String index = indexes.get(x);
        if (used[x][id] || !expected[x].isCertain(id)) {
          continue; // one op per id per bulk; uncertain ids wait for the next check
        }
        used[x][id] = true;
        Document now = expected[x].certain(id);
        double p = r.nextDouble();
        String key = name(id);
        Document next;
        if (now == null || p < 0.5) {
          next =
              PossibleDocuments.version(
                  name(id), id, r.nextInt(1_000_000), settings.dimension(), r);
          body.append("{\"index\":{\"_index\":\"").append(index).append("\",\"_id\":\"");
          body.append(key).append("\"}}\n").append(sourceJson(next));
        } else if (p < 0.8) {
          PartialUpdate u =
              PartialUpdate.of(key)
                  .withPrice(r.nextInt(1_000_000))
                  .withCategory("c" + r.nextInt(9));
          next = u.applyTo(now);
          body.append("{\"update\":{\"_index\":\"").append(index).append("\",\"_id\":\"");
          body.append(key).append("\"}}\n{\"doc\":{\"price\":").append(u.price());
          body.append(",\"category\":\"").append(u.category()).append("\"}}");
        } else {
          next = null;
          body.append("{\"delete\":{\"_index\":\"").append(index).append("\",\"_id\":\"");
          body.append(key).append("\"}}");
        }
        body.append('\n');
        ids[count] = id;
        where[count] = x;
        after[count++] = next;
      }
      if (count == 0) {
        continue;
      }
      // In flight: the server may keep either state if it dies before answering.
      for (int i = 0; i < count; i++) {
        expected[where[i]].invoke(ids[i], after[i]);
      }
      JsonNode items;
      try {
        HttpResponse<String> resp =
            http.send(
                HttpRequest.newBuilder(base.resolve("/_bulk"))
                    .header("Content-Type", "application/x-ndjson")
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
          continue; // refused as a whole (e.g. 429): stays uncertain until the next check
        }
        items = Json.MAPPER.readTree(resp.body()).get("items");
      } catch (IOException e) {
        return; // the server is gone; the in-flight ids stay uncertain
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (int i = 0; i < count; i++) {
        JsonNode result = items.get(i).elements().next();
        int status = result.get("status").asInt();
        if (status == 200 || status == 201) {
          expected[where[i]].acknowledge(ids[i], after[i]);
          acknowledged.incrementAndGet();
        }
        // Anything else stays uncertain: the check after the restart decides.
      }
    }
  }

  private static String sourceJson(Document d) {
    try {
      return Json.MAPPER.writeValueAsString(EsDocuments.source(d));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String name(int id) {
    return "id-" + id;
  }

  // ---------------------------------------------------------------------------------------------
  // Checking

  /**
   * Gets every id of every index and compares it with its possible states; resolves the uncertain
   * ones.
   */
  private long check(URI base) throws IOException, InterruptedException {
    long n = 0;
    for (int x = 0; x < indexes.size(); x++) {
      n += check(base, x);
    }
    return n;
  }

  private long check(URI base, int x) throws IOException, InterruptedException {
    String index = indexes.get(x);
    PossibleDocuments possible = expected[x];
    long n = 0;
    for (int id = 0; id < settings.ids(); id++) {
      HttpResponse<String> resp =
          http.send(
              HttpRequest.newBuilder(base.resolve("/" + index + "/_doc/" + name(id)))
                  .timeout(Duration.ofSeconds(60))
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      Document actual;
      if (resp.statusCode() == 404) {
        actual = null;
      } else if (resp.statusCode() == 200) {
        actual =
            product(
                EsDocuments.document(name(id), Json.MAPPER.readTree(resp.body()).get("_source")));
      } else {
        throw new IOException(
            "GET " + name(id) + " answered " + resp.statusCode() + ": " + resp.body());
      }
      PossibleDocuments.Verdict verdict = possible.verdict(id, actual);
      if (verdict != PossibleDocuments.Verdict.OK) {
        violations++;
        if (violations <= 20) {
          out.println(
              "VIOLATION ("
                  + verdict
                  + "): "
                  + index
                  + "/"
                  + name(id)
                  + " is "
                  + PossibleDocuments.describe(actual)
                  + "; acknowledged state "
                  + (possible.isCertain(id) ? "" : "(or in flight) ")
                  + possible.describe(id));
        }
      }
      possible.resolve(id, actual);
      n++;
    }
    checked += n;
    return n;
  }

  /**
   * The product the stored source reads as: the source comes back from JSON with the embedding as
   * doubles and the price as a number of any width, so both sides are compared as the benchmark's
   * fields with their declared types.
   */
  private static Document product(Document d) {
    return new Document(
        d.id(),
        d.title(),
        d.description(),
        d.category(),
        d.price(),
        d.averageRating(),
        d.embedding());
  }
}
