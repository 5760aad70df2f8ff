/**
 * Index mappings: what each field of an index is (Elasticsearch's mapping, Vespa's schema) and how
 * a document's source is read into field values against it.
 *
 * <p>Terms: a <em>mapping</em> is a tree of named fields; a <em>leaf</em> field holds values
 * ({@code text}, {@code keyword}, the numbers, {@code boolean}, {@code date}, {@code
 * dense_vector}), an {@code object} field holds other fields, and a field's <em>path</em> is its
 * dotted name from the root ({@code metadata.source}). A multi-field ({@code title.keyword}) is a
 * leaf indexed from its parent's value. <em>Dynamic</em> mapping adds fields a document brings, as
 * Elasticsearch's {@code dynamic: true} does.
 */
package org.searchlab.core.mapping;
