/**
 * What ships: the {@code searchlab} entry point ({@link org.searchlab.distribution.SearchlabCli})
 * with {@code serve} and {@code test}, and the {@link org.searchlab.distribution.CliExtension}
 * service the benchmark module plugs its commands into. The server image carries this module and
 * its runtime dependencies only.
 */
package org.searchlab.distribution;
