/**
 * Linearizability of client histories, checked one document at a time: a recorded {@link
 * org.searchlab.testing.history.Op} per client call (invocation and completion times, and an
 * outcome that is acknowledged, definitely failed or indeterminate), a sequential specification
 * ({@link org.searchlab.testing.history.Model}; {@link org.searchlab.testing.history.DocumentModel}
 * for a document of the HTTP API), the {@link org.searchlab.testing.history.LinearizabilityChecker}
 * and Jepsen-style diagnostics ({@link org.searchlab.testing.history.Anomalies}).
 *
 * <p>Terms: a <em>history</em> is a list of operations; an operation <em>precedes</em> another in
 * real time when it completed strictly before the other was invoked (intervals that touch are
 * concurrent); a history is <em>linearizable</em> when its operations can be put in one order that
 * respects real-time precedence in which every acknowledged output is the one the sequential model
 * gives. An indeterminate operation (a timeout, a reset connection, a 5xx) may have taken effect at
 * any point after its invocation, or never.
 *
 * <p>References: M. Herlihy and J. Wing, "Linearizability: a correctness condition for concurrent
 * objects", TOPLAS 1990 (locality: a history is linearizable iff each object's sub-history is,
 * which makes checking per document sound); J. Wing and C. Gong, "Testing and verifying concurrent
 * objects", JPDC 1993 (the search); G. Lowe, "Testing for linearizability", CCPE 2017 (the cache of
 * configurations seen); A. Athalye, Porcupine ({@code anishathalye/porcupine}, {@code checker.go}
 * {@code checkSingle}), whose structure the checker follows; K. Kingsbury, Jepsen (lost writes,
 * dirty reads, and the {@code :info} outcome that never completes).
 */
package org.searchlab.testing.history;
