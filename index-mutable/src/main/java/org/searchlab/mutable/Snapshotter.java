package org.searchlab.mutable;

import java.io.DataInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntPredicate;
import org.searchlab.core.Document;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.postings.FieldIndex;
import org.searchlab.mutable.snapshot.SnapshotFiles;

/**
 * Writes the index's structures into a snapshot and loads them back, keeping local ids: the live
 * ids with their external ids, the document store, the attribute columns, every field's postings,
 * norms and statistics, and (in a companion file) the graph with its vectors.
 *
 * <p>Thread safety: {@link #write} runs on the writer thread holding the writer's lock (searches
 * continue); {@link #load} runs while opening, before anything else touches the parts.
 */
final class Snapshotter {
  private Snapshotter() {}

  /** Writes a snapshot of everything applied so far; returns its serial. */
  static long write(Path dir, IndexParts parts) throws IOException {
    long serial = parts.ids.visibleSerial();
    int limit = parts.ids.limit();
    IntPredicate live = parts.ids::alive;
    boolean graph = parts.vectors.hasGraph();
    if (graph) {
      parts.vectors.writeSnapshot(SnapshotFiles.graphFile(dir, serial));
    }
    SnapshotFiles.write(
        dir,
        serial,
        out -> {
          out.writeInt(limit);
          out.writeBoolean(graph);
          int n = 0;
          for (int d = 0; d < limit; d++) {
            if (live.test(d)) {
              n++;
            }
          }
          out.writeInt(n);
          for (int d = 0; d < limit; d++) {
            if (live.test(d)) {
              byte[] id = parts.ids.external(d).getBytes(StandardCharsets.UTF_8);
              out.writeInt(d);
              out.writeInt(id.length);
              out.write(id);
            }
          }
          parts.documents.write(out, limit, live);
          parts.attributes.write(out, limit);
          for (FieldIndex f : parts.fields) {
            f.write(out, limit, live);
          }
        });
    parts.snapshots.incrementAndGet();
    return serial;
  }

  /**
   * Loads the newest snapshot into empty parts; {@link Loaded#NONE} when there is none. Each phase
   * ends with a mark in {@code times}.
   */
  static Loaded load(Path dir, IndexParts parts, int dimension, HnswConfig hnsw, OpenTimes times)
      throws IOException {
    long serial = SnapshotFiles.newestSerial(dir);
    if (serial < 0) {
      return Loaded.NONE;
    }
    boolean[] graph = new boolean[1];
    SnapshotFiles.read(
        dir,
        serial,
        in -> {
          times.mark("checksum");
          int limit = in.readInt();
          graph[0] = in.readBoolean();
          int n = in.readInt();
          for (int i = 0; i < n; i++) {
            int d = in.readInt();
            byte[] id = new byte[in.readInt()];
            in.readFully(id);
            parts.ids.restore(new String(id, StandardCharsets.UTF_8), d);
          }
          times.mark("ids");
          parts.documents.read(in, d -> {});
          times.mark("documents");
          parts.attributes.read(in, parts.ids::alive, limit);
          times.mark("attributes");
          for (FieldIndex f : parts.fields) {
            f.read(in);
          }
          checkEnd(in);
          times.mark("postings");
        });
    Path graphFile = SnapshotFiles.graphFile(dir, serial);
    if (graph[0]) {
      if (!Files.exists(graphFile)) {
        // The vectors live only there: the document store keeps documents without them.
        throw new IOException(
            "snapshot " + serial + " needs its graph file " + graphFile + ", which is missing");
      }
      parts.vectors = VectorPart.load(graphFile, hnsw, dir);
    } else {
      // A snapshot written without a graph (older stores, whose documents kept their vectors):
      // rebuild the graph from the stored vectors.
      parts.vectors = VectorPart.create(dimension, hnsw, dir);
      int limit = parts.ids.limit();
      for (int d = 0; d < limit; d++) {
        if (parts.ids.alive(d)) {
          Document doc = parts.documents.get(d);
          if (doc.embedding() != null) {
            parts.vectors.insert(d, doc.embedding());
          }
        }
      }
    }
    // The graph may hold nodes (or stored, not yet linked vectors) of versions retired before the
    // snapshot and not yet compacted. They stay, and go to the compactor as retired ids, exactly
    // as they were when the snapshot was written: removing them here would re-link their
    // neighbours, and the reopened graph would answer differently from the one that was closed.
    int bound = parts.vectors.vectors().idUpperBound();
    java.util.BitSet kept = new java.util.BitSet();
    for (int d = 0; d < bound; d++) {
      if (!parts.ids.alive(d) && parts.vectors.vectors().row(d) != null) {
        kept.set(d);
      }
    }
    parts.ids.freeGaps(kept);
    parts.ids.publish(serial);
    times.mark("graph");
    return new Loaded(serial, kept.stream().toArray());
  }

  /**
   * What {@link #load} restored.
   *
   * @param serial the snapshot's serial, 0 when there was none
   * @param retired local ids of retired versions still in the graph, for the compactor
   */
  record Loaded(long serial, int[] retired) {
    static final Loaded NONE = new Loaded(0, new int[0]);
  }

  private static void checkEnd(DataInput in) throws IOException {
    // Four bytes remain: the checksum, verified before the body was read.
    int rest = in.skipBytes(5);
    if (rest != 4) {
      throw new IOException("snapshot body ends after " + rest + " bytes of trailer");
    }
  }
}
