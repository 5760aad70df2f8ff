package org.searchlab.bench.data;

/**
 * The metadata of a built dataset, stored as {@code dataset.json}. Immutable.
 *
 * @param source how the documents were made: {@code debian}, {@code ndjson} or {@code synthetic}
 * @param model the embedding model (e.g. {@code all-MiniLM-L6-v2-q}), or {@code provided} when
 *     every embedding came with the input, or {@code synthetic-generator}
 * @param template the text template given to the model, {@code {title}} and {@code {description}}
 *     filled in; empty when no model ran
 * @param dimension the embedding dimension
 * @param documents the number of documents
 * @param queries the number of queries
 * @param groundTruthK the number of neighbours kept per query in the ground truth (100)
 * @param seed the seed of query sampling (and of synthetic generation)
 * @param noise for synthetic variants of a base corpus, the standard deviation of the Gaussian
 *     noise added per vector component before re-normalising; 0 otherwise
 * @param base the base dataset directory a synthetic corpus was derived from, or empty
 * @param categories the number of distinct categories
 */
public record DatasetInfo(
    String source,
    String model,
    String template,
    int dimension,
    int documents,
    int queries,
    int groundTruthK,
    long seed,
    double noise,
    String base,
    int categories) {}
