/**
 * Seeded synthetic data with the structure that makes search behave realistically: a Zipfian
 * vocabulary (term frequencies like natural text, Zipf 1949), skewed category sizes, and unit
 * vectors clustered around category-correlated centroids (so filters and neighbourhoods correlate,
 * as in a product catalogue).
 */
package org.searchlab.testing.data;
