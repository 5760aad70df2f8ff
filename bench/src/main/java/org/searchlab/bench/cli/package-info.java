/**
 * The {@code searchlab} command line (picocli): one top-level command with a subcommand per job
 * ({@code test}, {@code serve}, {@code experiment}, {@code dataset}, {@code hnsw-bench}, {@code
 * jmh}). {@code bin/searchlab} finds the JDK, builds stale jars and starts {@link
 * org.searchlab.bench.cli.SearchlabCli}.
 */
package org.searchlab.bench.cli;
