/**
 * {@code searchlab history}: client histories recorded over HTTP against a server child that is
 * SIGKILLed and restarted while they run, each judged per document by {@code test-framework}'s
 * linearizability checker and Jepsen-style anomaly sets, and the weaker search-after-refresh
 * guarantee checked apart.
 *
 * <p>Terms: a <em>history</em> is one server's data directory, {@code clients} threads making
 * {@code ops} single-document calls (put, create, partial update, delete, real-time get) on a few
 * dozen ids, kills at seeded moments, and a quiet final read of every id; each call is an {@link
 * org.searchlab.testing.history.Op} with its invocation and completion times ({@code
 * System.nanoTime()} in the recording JVM). Every write carries a unique <em>token</em> in a
 * keyword field, so a read names the write it saw. A call whose answer never came (a kill, a reset,
 * a timeout, a 5xx) is <em>indeterminate</em>: it may have taken effect at any time after it was
 * sent, or never.
 *
 * <p>References: K. Kingsbury, Jepsen's Elasticsearch analyses (lost and dirty writes from client
 * histories under faults); A. Athalye, Porcupine (per-key Wing–Gong–Lowe checking); M. Herlihy and
 * J. Wing, "Linearizability", TOPLAS 1990 (locality, which makes checking per document sound).
 */
package org.searchlab.bench.history;
