package org.searchlab.bench.data;

import java.util.Comparator;

/**
 * Debian version comparison ({@code [epoch:]upstream[-revision]}), as dpkg orders versions: epochs
 * numerically, then upstream and revision alternately by non-digit runs (letters before
 * non-letters, {@code ~} before everything, even the end) and digit runs (numerically). Used to
 * keep the newest entry of a package listed in several suites. Stateless and thread-safe.
 */
final class DebianVersion {
  static final Comparator<String> ORDER = DebianVersion::compare;

  private DebianVersion() {}

  static int compare(String a, String b) {
    int colonA = a.indexOf(':');
    int colonB = b.indexOf(':');
    long epochA = colonA < 0 ? 0 : parseLong(a.substring(0, colonA));
    long epochB = colonB < 0 ? 0 : parseLong(b.substring(0, colonB));
    if (epochA != epochB) {
      return Long.compare(epochA, epochB);
    }
    String restA = a.substring(colonA + 1);
    String restB = b.substring(colonB + 1);
    int dashA = restA.lastIndexOf('-');
    int dashB = restB.lastIndexOf('-');
    String upA = dashA < 0 ? restA : restA.substring(0, dashA);
    String upB = dashB < 0 ? restB : restB.substring(0, dashB);
    int c = comparePart(upA, upB);
    if (c != 0) {
      return c;
    }
    return comparePart(
        dashA < 0 ? "" : restA.substring(dashA + 1), dashB < 0 ? "" : restB.substring(dashB + 1));
  }

  private static long parseLong(String s) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static int comparePart(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() || j < b.length()) {
      // 1. the non-digit prefixes, character by character with dpkg's weights
      while ((i < a.length() && !Character.isDigit(a.charAt(i)))
          || (j < b.length() && !Character.isDigit(b.charAt(j)))) {
        int wa = i < a.length() && !Character.isDigit(a.charAt(i)) ? weight(a.charAt(i)) : 0;
        int wb = j < b.length() && !Character.isDigit(b.charAt(j)) ? weight(b.charAt(j)) : 0;
        if (wa != wb) {
          return Integer.compare(wa, wb);
        }
        if (i < a.length() && !Character.isDigit(a.charAt(i))) {
          i++;
        }
        if (j < b.length() && !Character.isDigit(b.charAt(j))) {
          j++;
        }
      }
      // 2. the digit runs, numerically (leading zeros ignored)
      while (i < a.length() && a.charAt(i) == '0') {
        i++;
      }
      while (j < b.length() && b.charAt(j) == '0') {
        j++;
      }
      int startA = i;
      int startB = j;
      while (i < a.length() && Character.isDigit(a.charAt(i))) {
        i++;
      }
      while (j < b.length() && Character.isDigit(b.charAt(j))) {
        j++;
      }
      int lenA = i - startA;
      int lenB = j - startB;
      if (lenA != lenB) {
        return Integer.compare(lenA, lenB);
      }
      int c = a.substring(startA, i).compareTo(b.substring(startB, j));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /** dpkg's order of a non-digit character: ~ lowest, then end of string, letters, the rest. */
  private static int weight(char c) {
    if (c == '~') {
      return -1;
    }
    if (Character.isLetter(c)) {
      return c;
    }
    return c + 256;
  }
}
