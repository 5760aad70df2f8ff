/**
 * The write-ahead log both stores acknowledge writes against.
 *
 * <p>Terms: a <em>record</em> is one operation's bytes with a serial number and a CRC-32C; a
 * <em>file</em> ({@code wal-<first serial>.log}) holds consecutive records; the <em>serial</em>
 * increases by one per record across files and restarts; <em>group commit</em> lets concurrent
 * writers share one fsync (as Elasticsearch's translog and Vespa's transaction log do); a <em>torn
 * tail</em> is a partly written last record after a crash, detected by length or CRC and cut on
 * open, never replayed.
 */
package org.searchlab.core.wal;
