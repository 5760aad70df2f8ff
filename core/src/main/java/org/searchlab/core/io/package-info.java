/**
 * File-system operations the stores need to be durable across a power cut, not only across a crash
 * of the process.
 *
 * <p>Terms: an entry (a name in a directory) is <em>durable</em> once the directory that holds it
 * has been forced ({@code FileChannel.force} on the directory, fsync(2) on Linux); forcing a file
 * or the new directory itself does not make the name durable (see {@code docs/durability.md},
 * "Power loss", and the design note of issue 70, finding R1).
 */
package org.searchlab.core.io;
