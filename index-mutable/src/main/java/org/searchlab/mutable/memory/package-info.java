/**
 * Memory building blocks of the mutable index: paged columns indexed by local document id that grow
 * without moving published data, and the generation handler that tells the writer when no reader
 * can still see memory it wants to reuse.
 *
 * <p>Terms: a <em>page</em> is a fixed-size array of {@value
 * org.searchlab.mutable.memory.Pages#PAGE_SIZE} entries; the <em>directory</em> is the array of
 * pages, replaced copy-on-write when it grows, so a reader never sees a page move; a
 * <em>generation</em> (Vespa's {@code GenerationHandler}) separates readers that started before a
 * retirement from those that started after it.
 */
package org.searchlab.mutable.memory;
