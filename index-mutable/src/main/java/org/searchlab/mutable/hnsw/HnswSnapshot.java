package org.searchlab.mutable.hnsw;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.io.Durable;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.mutable.snapshot.ChannelInput;

/**
 * The snapshot file of a {@link MutableHnswGraph}: graph and vectors, loadable without graph work.
 *
 * <p>Format (big-endian, {@link DataOutputStream}): magic {@code "SLHNSW"} as a long, format
 * version int (2), dimension, m, efConstruction, the similarity's Elasticsearch name ({@link
 * DataOutputStream#writeUTF}), id bound, node count, entry node, entry level; then per node id
 * below the bound a level byte (-1 when absent) and, when present, its vector floats and for each
 * level the link count, the links and their raw scores ({@link GraphSimilarity}); then the CRC32C
 * of everything before it as a long. Version 1, written before graphs had a similarity, has no
 * similarity field and is read as {@code dot_product}, the only similarity graphs had then.
 *
 * <p>The similarity is checked on load, not taken from the file: a graph's links were chosen by its
 * similarity's distances and its link scores are that similarity's raw scores, so a config that
 * names another one is refused (an {@link IOException} naming both), as a different {@code m} is.
 * Letting the file win would leave a caller that believes it searches by one similarity with scores
 * of another; the remedy for a changed similarity is a new graph built from the documents.
 *
 * <p>Thread-safety: {@link #write} runs on the graph's writer thread (so the graph is still);
 * {@link #read} builds a new graph nobody else sees yet.
 */
final class HnswSnapshot {
  static final long MAGIC = 0x534C484E53570000L; // "SLHNSW\0\0"
  static final int VERSION = 2;

  /** The first version, without a similarity field: its graphs are {@code dot_product}. */
  static final int VERSION_DOT_PRODUCT_ONLY = 1;

  private HnswSnapshot() {}

  static void write(MutableHnswGraph graph, Path file) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    CRC32C crc = new CRC32C();
    try (OutputStream os = Files.newOutputStream(tmp);
        DataOutputStream out =
            new DataOutputStream(
                new CheckedOutputStream(new BufferedOutputStream(os, 1 << 16), crc))) {
      VectorStore vectors = graph.vectors();
      HnswAdjacency adjacency = graph.adjacency();
      int bound = adjacency.idUpperBound();
      long entry = adjacency.entry();
      out.writeLong(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(vectors.dimension());
      out.writeInt(graph.config().m());
      out.writeInt(graph.config().efConstruction());
      out.writeUTF(graph.config().similarity().esName());
      out.writeInt(bound);
      out.writeInt(graph.size());
      out.writeInt(HnswAdjacency.entryNode(entry));
      out.writeInt(HnswAdjacency.entryLevel(entry));
      for (int node = 0; node < bound; node++) {
        int[][] lists = adjacency.contains(node) ? adjacency.lists(node) : null;
        if (lists == null) {
          out.writeByte(-1);
          continue;
        }
        float[][] scores = adjacency.scores(node);
        out.writeByte(lists.length - 1);
        for (float f : vectors.get(node)) {
          out.writeFloat(f);
        }
        for (int level = 0; level < lists.length; level++) {
          out.writeInt(lists[level].length);
          for (int i = 0; i < lists[level].length; i++) {
            out.writeInt(lists[level][i]);
            out.writeFloat(scores[level][i]);
          }
        }
      }
      out.flush();
      long checksum = crc.getValue();
      out.writeLong(checksum);
      out.flush();
    }
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    // The new name must be durable before the snapshot that needs it is renamed into place (R3 of
    // issue 70): with one directory force after both renames, a disk that persists entry changes
    // in any order can keep the snapshot's rename and lose this one, and the store then refuses to
    // open ("needs its graph file ..., which is missing").
    Durable.forceDirectory(file.toAbsolutePath().getParent());
  }

  static MutableHnswGraph read(Path file, HnswConfig config, Path scratch) throws IOException {
    // Read in large chunks with one CRC update per chunk (ChannelInput): through a DataInputStream
    // over checked, buffered streams each of the file's ~400 million values for 1M documents cost
    // a locked read and a CRC call of its own, and the load ran at 180 MB/s.
    try (ChannelInput in = new ChannelInput(file)) {
      if (in.readLong() != MAGIC) {
        throw new IOException(file + " is not an HNSW snapshot (bad magic)");
      }
      int version = in.readInt();
      if (version != VERSION && version != VERSION_DOT_PRODUCT_ONLY) {
        throw new IOException(
            file
                + " has snapshot format version "
                + version
                + ", this code reads "
                + VERSION_DOT_PRODUCT_ONLY
                + " and "
                + VERSION);
      }
      int dimension = in.readInt();
      int m = in.readInt();
      in.readInt(); // efConstruction at build time, informative
      if (m != config.m()) {
        throw new IOException(
            file + " was built with m " + m + " but the config has " + config.m());
      }
      VectorSimilarity similarity =
          version == VERSION_DOT_PRODUCT_ONLY
              ? VectorSimilarity.DOT_PRODUCT
              : similarity(file, in.readUTF());
      if (similarity != config.similarity()) {
        throw new IOException(
            file
                + " was built with similarity ["
                + similarity.esName()
                + "] but the config has ["
                + config.similarity().esName()
                + "]; a graph cannot change its similarity, build a new one from the vectors");
      }
      int bound = in.readInt();
      int count = in.readInt();
      int entryNode = in.readInt();
      int entryLevel = in.readInt();
      // The codes are not in the file: each is a function of its float vector alone (Int8Codes), so
      // set() recomputes the very bytes the writer had.
      VectorStore vectors = VectorStore.create(dimension, config, scratch);
      try {
        return readNodes(in, file, config, vectors, bound, count, entryNode, entryLevel);
      } catch (IOException | RuntimeException e) {
        try {
          vectors.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
  }

  /** The similarity a snapshot names; an {@link IOException} for a name no similarity has. */
  private static VectorSimilarity similarity(Path file, String name) throws IOException {
    try {
      return VectorSimilarity.parse(name);
    } catch (InvalidRequestException e) {
      throw new IOException(file + " is corrupt: " + e.getMessage(), e);
    }
  }

  private static MutableHnswGraph readNodes(
      ChannelInput in,
      Path file,
      HnswConfig config,
      VectorStore vectors,
      int bound,
      int count,
      int entryNode,
      int entryLevel)
      throws IOException {
    {
      int dimension = vectors.dimension();
      MutableHnswGraph graph = new MutableHnswGraph(vectors, config);
      float[] v = new float[dimension];
      for (int node = 0; node < bound; node++) {
        int top = in.readByte();
        if (top < 0) {
          continue;
        }
        in.readFloats(v, 0, dimension);
        vectors.set(node, v);
        int[][] lists = new int[top + 1][];
        float[][] scores = new float[top + 1][];
        for (int level = 0; level <= top; level++) {
          int n = in.readInt();
          if (n < 0 || n > config.maxLinks(level)) {
            throw new IOException(file + ": node " + node + " has " + n + " links on " + level);
          }
          lists[level] = new int[n];
          scores[level] = new float[n];
          for (int i = 0; i < n; i++) {
            int to = in.readInt();
            // Checked before the checksum can be: publishing records who links to whom, and a
            // corrupt id would size the writer's tables by it.
            if (to < 0 || to >= bound) {
              throw new IOException(
                  file + " is corrupt: node " + node + " links to " + to + ", outside 0.." + bound);
            }
            lists[level][i] = to;
            scores[level][i] = in.readFloat();
          }
        }
        graph.adjacency().publishNode(node, lists, scores);
      }
      long expected = in.checksum();
      long stored = in.readLong();
      if (stored != expected) {
        throw new IOException(
            file + " is corrupt: checksum " + Long.toHexString(stored) + " != " + expected);
      }
      if (graph.size() != count) {
        throw new IOException(file + " holds " + graph.size() + " nodes, header says " + count);
      }
      InlineCodeRows inline = graph.adjacency().inlineRows();
      if (inline != null) {
        inline.remirror(graph.adjacency()); // rows set before their neighbours' codes existed
      }
      graph.adjacency().setEntry(HnswAdjacency.packEntry(entryNode, entryLevel));
      return graph;
    }
  }
}
