package org.searchlab.core;

/**
 * One search hit: the external id and its score under the request's rank profile.
 *
 * @param id external document id
 * @param score the score; higher is better
 */
public record Hit(String id, float score) {}
