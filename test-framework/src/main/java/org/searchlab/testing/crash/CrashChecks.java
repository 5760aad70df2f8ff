package org.searchlab.testing.crash;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.searchlab.core.Document;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.crash.CrashExplorer.Violation;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.CrashState;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.FsTrace;
import org.searchlab.testing.disk.PowerCut;

/**
 * The checks of a store recovered from a crash state of a {@link CrashWorkload}'s trace (design
 * note of issue 70, §4.3), as a {@link CrashExplorer.Recovery} and a {@link CrashExplorer.Check}:
 *
 * <ol>
 *   <li><b>it opens</b>: any exception is a violation;
 *   <li><b>state equality at one j</b>: with a = the positions acknowledged before the crash and i
 *       = the positions invoked (a bulk's writes count one each), some j with a ≤ j ≤ i has every
 *       id's document equal, whole (every field and vector component), to the {@link
 *       ReferenceStore} after the first j positions. That is "no acknowledged write lost" (j ≥ a),
 *       "no document never written" (j ≤ i) and "no torn document", and it forbids mixing two
 *       versions across ids;
 *   <li><b>still a store</b>, on every tenth recovered image: the store is opened on a forgetful
 *       disk over the image, takes one more put and is closed; the power is then cut, dropping
 *       whatever the recovery and the close did not force; reopened, it must hold that put and the
 *       recovered documents. So recovery itself must be crash-safe.
 * </ol>
 *
 * <p>Thread-safe once built: it only reads its fields.
 */
public final class CrashChecks {
  /** Opens a store in a directory (on whatever file system the path belongs to). */
  @FunctionalInterface
  public interface StoreOpener {
    SearchIndex open(Path dir) throws IOException;
  }

  /**
   * What one image recovered to: the documents read back by id, and why the store was not one any
   * more after a put, a close and a cut (null when it was, or was not tried).
   */
  public record Recovered(Map<String, Document> documents, String notAStore) {}

  /** The id of the put that checks a recovered store still takes writes. */
  static final String EXTRA_ID = "crash-check-extra";

  /** Every how many recovered images the "still a store" check runs. */
  static final int STILL_A_STORE_EVERY = 10;

  private final CrashWorkload workload;
  private final List<Map<String, Document>> references;
  private final long[] invoked;
  private final long[] acked;
  private final String storeDir;
  private final StoreOpener opener;
  private final Document extra;

  /**
   * Checks for {@code workload}, whose run was recorded in {@code trace} with the store in {@code
   * storeDir} (relative to the disk's root, with {@code /} between names); {@code opener} opens it.
   */
  public CrashChecks(
      CrashWorkload workload, FsTrace trace, String storeDir, StoreOpener opener, int dimension) {
    this.workload = Objects.requireNonNull(workload, "workload");
    this.references = ReferenceStore.everyPrefix(workload.steps());
    this.invoked = trace.markerValues("invoke");
    this.acked = trace.markerValues("ack");
    this.storeDir = Objects.requireNonNull(storeDir, "storeDir");
    this.opener = Objects.requireNonNull(opener, "opener");
    float[] v = new float[dimension];
    v[0] = 1;
    this.extra = new Document(EXTRA_ID, "extra title", "extra words", "extra", 7, 1.5f, v);
  }

  /** The recovery: open the store on the image, read every id, close. */
  public CrashExplorer.Recovery<Recovered> recovery() {
    return (dir, ordinal) ->
        ordinal % STILL_A_STORE_EVERY == 0 ? recoverAndWrite(dir) : recoverOnly(dir);
  }

  /** The check of one state against what its image recovered to. */
  public CrashExplorer.Check<Recovered> check() {
    return this::check;
  }

  private Recovered recoverOnly(Path dir) throws IOException {
    try (SearchIndex index = opener.open(dir.resolve(storeDir))) {
      return new Recovered(read(index), null);
    }
  }

  private Recovered recoverAndWrite(Path dir) throws IOException {
    ForgetfulFileSystem fs = ForgetfulFileSystem.over(dir, DiskModel.Options.DEFAULT);
    Map<String, Document> docs;
    try (SearchIndex index = opener.open(fs.resolve(storeDir))) {
      docs = read(index);
      index.put(extra);
    }
    CrashImage after = fs.powerCut(PowerCut.dropUnforced(), new SplittableRandom(0));
    Path again = dir.resolveSibling(dir.getFileName() + "-after-put");
    after.writeTo(again);
    String notAStore = null;
    try (SearchIndex index = opener.open(again.resolve(storeDir))) {
      Optional<Document> got = index.get(EXTRA_ID);
      if (!got.equals(Optional.of(extra))) {
        notAStore = "the put after recovery, closed and cut, reads back as " + got;
      } else if (!read(index).equals(docs)) {
        notAStore = "the recovered documents changed across a put, a close and a cut";
      }
    } catch (IOException | RuntimeException e) {
      notAStore = "does not reopen after a put, a close and a cut: " + e;
    } finally {
      CrashExplorer.deleteTree(again);
    }
    return new Recovered(docs, notAStore);
  }

  private Map<String, Document> read(SearchIndex index) throws IOException {
    Map<String, Document> out = new TreeMap<>();
    for (String id : workload.ids()) {
      index.get(id).ifPresent(d -> out.put(id, d));
    }
    return out;
  }

  private Violation check(CrashState s, Recovered r) {
    if (r.notAStore() != null) {
      return new Violation("still a store", r.notAStore());
    }
    int a = (int) acked[s.prefix()];
    int i = (int) invoked[s.prefix()];
    for (int j = a; j <= i; j++) {
      if (references.get(j).equals(r.documents())) {
        return null;
      }
    }
    return new Violation(
        "state",
        "no j in ["
            + a
            + ", "
            + i
            + "] matches; against the "
            + a
            + " acknowledged positions: "
            + differences(references.get(a), r.documents()));
  }

  /** The first few ids whose documents differ, each with both versions. */
  private static String differences(Map<String, Document> want, Map<String, Document> got) {
    List<String> out = new ArrayList<>();
    TreeMap<String, Boolean> ids = new TreeMap<>();
    want.keySet().forEach(id -> ids.put(id, true));
    got.keySet().forEach(id -> ids.put(id, true));
    for (String id : ids.keySet()) {
      Document w = want.get(id);
      Document g = got.get(id);
      if (!Objects.equals(w, g)) {
        out.add(
            id + " is " + (g == null ? "absent" : g) + ", expected " + (w == null ? "absent" : w));
        if (out.size() == 3) {
          break;
        }
      }
    }
    return out.toString();
  }
}
