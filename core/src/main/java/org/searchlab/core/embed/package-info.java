/**
 * Text embedding behind one interface, so the dataset builder and the server's query-text embedding
 * share a model (all-MiniLM-L6-v2 in this project, the size class of the benchmark's
 * snowflake-arctic-embed-xs) without core depending on a model runtime.
 */
package org.searchlab.core.embed;
