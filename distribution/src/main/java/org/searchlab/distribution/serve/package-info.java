/**
 * {@code searchlab serve}: the picocli command that opens a store with every one of its knobs as a
 * flag, starts the {@link org.searchlab.server.SearchServer} in front of it, and closes both on
 * SIGTERM.
 */
package org.searchlab.distribution.serve;
