/**
 * Model-checked publication scenarios of the mutable store: one writer and its lock-free readers,
 * run by Lincheck's model checker (bytecode instrumentation; every shared-memory access, atomics
 * and {@code VarHandle}s included, is a point where it may switch threads), which explores their
 * interleavings and checks each against a sequential specification and in-operation invariants.
 *
 * <p>Terms: a <em>scenario</em> is a class whose {@code @Operation} methods Lincheck calls from
 * several threads; writer operations share one {@code nonParallelGroup}, so they always run on one
 * thread, as the store's single writer does. An <em>iteration</em> is one randomly generated
 * scenario (which operations run on which thread); an <em>invocation</em> is one interleaving of
 * it. The acceptance bound of issue 70 is 100 iterations of 10,000 invocations per scenario, or
 * fewer invocations where the checker has explored every interleaving of an iteration.
 *
 * <p>What it cannot see: the checker is sequentially consistent, so a weakened access mode or a
 * dropped fence (mutants P4, P7, A4 of {@code src/test/mutations/README.md}) changes nothing here;
 * {@code PublicationProtocolTest} pins those in the bytecode.
 *
 * <p>References: N. Koval, A. Fedorov, M. Sokolova, D. Tsitelov, D. Alistarh, "Lincheck: A
 * Practical Framework for Testing Concurrent Data Structures on JVM", CAV 2023; M. Herlihy, J.
 * Wing, "Linearizability", TOPLAS 1990.
 */
package org.searchlab.mutable.modelcheck;
