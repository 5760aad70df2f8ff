/**
 * Restart-time measurement of the mutable store: build (once) a large index from a seeded synthetic
 * corpus, snapshot and close it, then time fresh JVMs reopening it, phase by phase ({@code
 * searchlab restart-time}).
 */
package org.searchlab.bench.restart;
