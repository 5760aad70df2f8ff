/**
 * A disk that forgets, in the JVM: a {@code java.nio.file} file system ({@link
 * org.searchlab.testing.disk.ForgetfulFileSystem}) over a real directory, whose {@link
 * org.searchlab.testing.disk.DiskModel} keeps forced data and forced directory entries apart from
 * what was only written, and on a simulated power cut ({@link org.searchlab.testing.disk.PowerCut})
 * builds the {@link org.searchlab.testing.disk.CrashImage} a real cut could leave. Recording
 * ({@link org.searchlab.testing.disk.FsTrace}) keeps every file operation of a workload in order;
 * {@link org.searchlab.testing.disk.TraceReplayer} rebuilds any {@link
 * org.searchlab.testing.disk.CrashState} of it from the trace alone, and {@link
 * org.searchlab.testing.disk.CrashStates} lists the states worth recovering.
 *
 * <p>Terms: <em>force</em> is {@code FileChannel.force} on any channel of a file (fsync works on
 * the inode); <em>dir force</em> is {@code force} on a channel opened on a directory, which makes
 * its entry changes (create, mkdir, rename, unlink) durable; <em>unforced</em> is issued and not
 * yet covered by either. The device model is Linux with a journaling file system, with the page
 * cache lost and nothing else: see the design note of issue 70, §3. Ideas from LazyFS (Jepsen),
 * ALICE (Pillai et al., OSDI 2014) and CrashMonkey (Mohan et al., OSDI 2018); the delegation
 * follows Lucene's {@code tests.mockfile} file systems.
 */
package org.searchlab.testing.disk;
