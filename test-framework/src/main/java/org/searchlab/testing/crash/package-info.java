/**
 * Crash points of a store's recorded trace, recovered and checked (design note of issue 70, §4): a
 * seeded single-threaded {@link org.searchlab.testing.crash.CrashWorkload} whose file operations a
 * {@link org.searchlab.testing.disk.ForgetfulFileSystem} records, the exact {@link
 * org.searchlab.testing.crash.ReferenceStore} it must match, the {@link
 * org.searchlab.testing.crash.CrashExplorer} that rebuilds and recovers each distinct crash image
 * once, and the store-level {@link org.searchlab.testing.crash.CrashChecks}.
 *
 * <p>Terms: a <em>state</em> is a prefix of the trace and a choice of what survived the cut; its
 * <em>image</em> is the directory tree it leaves, and states with equal images are recovered once;
 * <em>acknowledged</em> and <em>invoked</em> count the workload's positions (writes, a bulk's one
 * by one) before the crash, from its {@code "ack k"} and {@code "invoke k"} markers.
 *
 * <p>References: T. S. Pillai et al., "All File Systems Are Not Created Equal: On the Complexity of
 * Crafting Crash-Consistent Applications" (ALICE), OSDI 2014; J. Mohan et al., "Finding Crash-
 * Consistency Bugs with Bounded Black-Box Crash Testing" (CrashMonkey), OSDI 2018.
 */
package org.searchlab.testing.crash;
