/**
 * Snapshot files of the mutable index: versioned, checksummed, written to a temporary file, forced
 * and renamed into place, so a crash leaves either the old snapshot or the new one, never a torn
 * one.
 *
 * <p>Terms: a <em>snapshot</em> holds everything acknowledged up to its <em>serial</em> (the write-
 * ahead log serial of the last operation applied); opening loads the newest snapshot and replays
 * the log records after its serial. The graph and its vectors live in a companion file written by
 * the graph itself ({@code graph-<serial>.bin}), written before the main file is renamed into
 * place.
 */
package org.searchlab.mutable.snapshot;
