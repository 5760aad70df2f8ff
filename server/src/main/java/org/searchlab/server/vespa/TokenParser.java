package org.searchlab.server.vespa;

import java.util.List;

/**
 * What YQL's parser ({@link YqlParser}) and the grouping language's ({@link GroupingParser}) share:
 * their tokens and a cursor over them, with the errors that name a token's column. Not thread-safe;
 * one instance per statement.
 */
abstract class TokenParser {
  /** What a token is. */
  enum Kind {
    IDENT,
    /** A whole number (YQL; the grouping language has only {@link #NUMBER}s). */
    INT,
    /** A number with a fraction or an exponent, or any number of the grouping language. */
    NUMBER,
    STRING,
    /** {@code @name}: a reference to a request parameter; the text is the name. */
    PARAM,
    PUNCT,
    END
  }

  /** One token, with the 1-based column of its first character in the whole statement. */
  record Token(Kind kind, String text, int column) {
    /** Whether this is the keyword or punctuation {@code s} (keywords case-insensitive). */
    boolean is(String s) {
      return (kind == Kind.PUNCT || kind == Kind.IDENT) && text.equalsIgnoreCase(s);
    }

    /** The token as an error message shows it. */
    String show() {
      return switch (kind) {
        case END -> "the end of the statement";
        case STRING -> "string \"" + text + "\"";
        case PARAM -> "'@" + text + "'";
        default -> "'" + text + "'";
      };
    }
  }

  /** The whole statement, for error pointers. */
  final String yql;

  /** The tokens, ending with an {@link Kind#END}. */
  final List<Token> tokens;

  private int pos;

  TokenParser(String yql, List<Token> tokens) {
    this.yql = yql;
    this.tokens = tokens;
  }

  final Token peek() {
    return tokens.get(pos);
  }

  /** The current token, moving past it (never past the end). */
  final Token next() {
    Token t = tokens.get(pos);
    if (t.kind() != Kind.END) {
      pos++;
    }
    return t;
  }

  /** Moves past the punctuation {@code punct} if it comes next; whether it did. */
  final boolean skip(String punct) {
    if (peek().is(punct)) {
      next();
      return true;
    }
    return false;
  }

  /** Moves past the punctuation {@code punct}, or fails saying {@code what} was expected. */
  final void expect(String punct, String what) {
    Token t = next();
    if (!(t.kind() == Kind.PUNCT && t.text().equals(punct))) {
      throw error(t, "expected " + what + ", found " + t.show());
    }
  }

  /**
   * Reads the identifier starting at {@code start} (letters, digits, {@code _} and {@code .}, as in
   * {@code hnsw.exploreAdditionalHits} or {@code meta.rank}) into a {@link Kind#IDENT} token;
   * returns the index after it.
   */
  static int identifier(String s, int start, int column, List<Token> out) {
    int j = start + 1;
    while (j < s.length()
        && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '.')) {
      j++;
    }
    out.add(new Token(Kind.IDENT, s.substring(start, j), column));
    return j;
  }

  /**
   * Reads the string literal quoted by {@code s.charAt(start)} ({@code "} or {@code '}; {@code \n}
   * and {@code \t} are escapes, a backslash takes any other character as it is) into a {@link
   * Kind#STRING} token; returns the index after its closing quote.
   *
   * @param yql the whole statement, for the error of an unclosed string
   * @param column the 1-based column of the opening quote in {@code yql}
   */
  static int string(String yql, String s, int start, int column, List<Token> out) {
    char quote = s.charAt(start);
    StringBuilder sb = new StringBuilder();
    int n = s.length();
    int j = start + 1;
    while (true) {
      if (j >= n) {
        throw new YqlException(yql, column, "the string starting here is not closed");
      }
      char d = s.charAt(j);
      if (d == '\\' && j + 1 < n) {
        char e = s.charAt(j + 1);
        sb.append(
            switch (e) {
              case 'n' -> '\n';
              case 't' -> '\t';
              default -> e;
            });
        j += 2;
      } else if (d == quote) {
        out.add(new Token(Kind.STRING, sb.toString(), column));
        return j + 1;
      } else {
        sb.append(d);
        j++;
      }
    }
  }

  final YqlException error(Token t, String message) {
    return new YqlException(yql, t.column(), message);
  }
}
