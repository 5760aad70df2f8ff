/**
 * {@code searchlab crashtest}: kills a real server child process at seeded moments while it takes
 * writes, restarts it, and checks every acknowledged operation exactly against a journal kept by
 * the feeders (nothing lost, nothing deleted coming back, no document mixing two versions).
 */
package org.searchlab.bench.crash;
