/**
 * The benchmark module's {@code searchlab} subcommands ({@code experiment}, {@code jmh}; {@code
 * dataset} and {@code hnsw-bench} live with their code), registered with the distribution's command
 * line through {@link org.searchlab.bench.cli.BenchCommands}.
 */
package org.searchlab.bench.cli;
