// Over 500 lines: the YQL grammar, one method per production, with its limits and errors.
package org.searchlab.server.vespa;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.searchlab.server.ServerLimits;

/**
 * A recursive-descent parser for the YQL subset the server translates. Errors are {@link
 * YqlException}s naming the 1-based column and what was expected. Not thread-safe; one instance per
 * statement ({@link #parse} creates it).
 *
 * <pre>
 * select     := 'select' fields 'from' sources 'where' or ['order' 'by' order (',' order)*]
 *               ['limit' INT] ['offset' INT] ['timeout' INT] [';'] ['|' grouping]
 * order      := (IDENT | STRING) ['asc' | 'desc']
 * fields     := '*' | IDENT (',' IDENT)*
 * sources    := 'sources' ('*' | IDENT (',' IDENT)*) | IDENT (',' IDENT)*
 * or         := and ('or' and)*
 * and        := unary ('and' unary)*
 * unary      := '(' or ')' | '!' unary | ['{' annotation (',' annotation)* '}'] term
 * annotation := IDENT ':' (NUMBER | 'true' | 'false' | STRING)
 * term       := 'true' | 'false' | 'userQuery' '(' ')' | 'userInput' '(' text ')'
 *             | 'nearestNeighbor' '(' IDENT ',' IDENT ')'
 *             | ('weakAnd' | 'rank') '(' or (',' or)* ')'
 *             | 'range' '(' IDENT ',' bound ',' bound ')'
 *             | IDENT 'contains' (text | 'text' '(' text ')')
 *             | IDENT 'in' '(' value (',' value)* ')'
 *             | IDENT ('&lt;' | '&lt;=' | '&gt;' | '&gt;=') NUMBER | NUMBER ('&lt;' | ...) IDENT
 *             | IDENT '=' (NUMBER | STRING | 'true' | 'false')
 * text       := STRING | '@' IDENT
 * value      := STRING | NUMBER | '@' IDENT
 * bound      := NUMBER | 'Infinity' | '-Infinity'
 * </pre>
 *
 * A NUMBER may end in {@code L} ({@code 100L}). Keywords are case-insensitive; identifiers may
 * contain dots ({@code hnsw.exploreAdditionalHits}). The grouping after {@code |} is its own
 * language, read by {@link GroupingParser}.
 */
final class YqlParser extends TokenParser {
  private final int maxDepth;

  /** The index of the {@code |} that starts the grouping, or -1 without one. */
  private final int groupingStart;

  private int depth;

  private YqlParser(String yql, int maxDepth) {
    super(yql, new ArrayList<>());
    this.maxDepth = maxDepth;
    this.groupingStart = tokenize(yql, tokens);
  }

  /** Parses a whole statement with the default limits ({@link ServerLimits#DEFAULT}). */
  static Yql.Select parse(String yql) {
    return parse(yql, ServerLimits.DEFAULT.maxYqlLength(), ServerLimits.DEFAULT.maxQueryDepth());
  }

  /**
   * Parses a whole statement.
   *
   * @param maxLength the longest statement, in characters
   * @param maxDepth the deepest nesting of parentheses; the parser recurses once per level, so this
   *     bound is also what keeps a hostile statement from overflowing the stack
   */
  static Yql.Select parse(String yql, int maxLength, int maxDepth) {
    if (yql == null || yql.isBlank()) {
      throw new YqlException(yql, 1, "the statement is empty; expected 'select'");
    }
    if (yql.length() > maxLength) {
      throw new YqlException(
          yql,
          maxLength + 1,
          "the statement has "
              + yql.length()
              + " characters, more than the limit of "
              + maxLength
              + " (--max-yql-length)");
    }
    return new YqlParser(yql, maxDepth).select();
  }

  private Yql.Select select() {
    keyword("select");
    List<String> fields = new ArrayList<>();
    if (peek().is("*")) {
      next();
    } else {
      fields.add(ident("a field name or '*'").text());
      while (peek().is(",")) {
        next();
        fields.add(ident("a field name").text());
      }
    }
    keyword("from");
    List<String> sources = new ArrayList<>();
    if (peek().is("sources")) {
      next();
      if (peek().is("*")) {
        next();
      } else {
        sources.add(ident("a document type or '*'").text());
        while (peek().is(",")) {
          next();
          sources.add(ident("a document type").text());
        }
      }
    } else {
      sources.add(ident("a document type or 'sources'").text());
      while (peek().is(",")) {
        next();
        sources.add(ident("a document type").text());
      }
    }
    keyword("where");
    Yql where = or();
    List<Yql.OrderBy> orderBy = new ArrayList<>();
    if (peek().is("order")) {
      next();
      keyword("by");
      do {
        orderBy.add(orderKey());
      } while (skip(","));
    }
    int limit = -1;
    int offset = -1;
    while (true) {
      Token t = peek();
      if (t.is("limit")) {
        next();
        limit = integer("a limit");
      } else if (t.is("offset")) {
        next();
        offset = integer("an offset");
      } else if (t.is("timeout")) {
        next();
        integer("a timeout in milliseconds");
      } else {
        break;
      }
    }
    if (peek().is(";")) {
      next();
    }
    Token end = peek();
    if (end.kind() != Kind.END) {
      throw error(
          end,
          "expected 'and', 'or', 'order by', 'limit', 'offset', '|' or the end, found "
              + end.show());
    }
    List<GroupingParser.Op> grouping =
        groupingStart < 0
            ? List.of()
            : GroupingParser.parse(
                yql, yql.substring(groupingStart + 1), groupingStart + 1, maxDepth);
    return new Yql.Select(
        List.copyOf(fields),
        List.copyOf(sources),
        where,
        List.copyOf(orderBy),
        limit,
        offset,
        grouping);
  }

  /**
   * One key of {@code order by}: an attribute or a quoted special attribute, then {@code asc} or
   * {@code desc}. Sort functions ({@code {function: "uca"}}) are refused.
   */
  private Yql.OrderBy orderKey() {
    Token t = next();
    if (t.is("{")) {
      throw error(
          t,
          "order by annotations ({function: \"uca\"}, {function: \"lowercase\"}) are not"
              + " supported; order by the attribute itself");
    }
    String field;
    if (t.kind() == Kind.STRING) {
      field = t.text();
      if (!List.of("[relevance]", "[rank]", "[docid]").contains(field)) {
        throw error(
            t,
            "order by \""
                + (field.length() > 40 ? field.substring(0, 40) + "..." : field)
                + "\" is not a special sort attribute; use \"[relevance]\", \"[rank]\","
                + " \"[docid]\" or an attribute name without quotes");
      }
    } else if (t.kind() == Kind.IDENT && !peek().is("(")) {
      field = t.text();
    } else {
      throw error(
          t,
          "expected an attribute or \"[relevance]\" after 'order by', found "
              + t.show()
              + (peek().is("(") ? " (order by takes attributes, not functions)" : ""));
    }
    boolean special = field.equals("[relevance]") || field.equals("[rank]");
    boolean descending = special;
    if (peek().is("asc") || peek().is("desc")) {
      descending = next().is("desc");
    }
    return new Yql.OrderBy(field, descending, t.column());
  }

  private Yql or() {
    Yql first = and();
    if (!peek().is("or")) {
      return first;
    }
    List<Yql> terms = new ArrayList<>(List.of(first));
    while (peek().is("or")) {
      next();
      terms.add(and());
    }
    return new Yql.Or(List.copyOf(terms), first.column());
  }

  private Yql and() {
    Yql first = unary();
    if (!peek().is("and")) {
      return first;
    }
    List<Yql> terms = new ArrayList<>(List.of(first));
    while (peek().is("and")) {
      next();
      terms.add(unary());
    }
    return new Yql.And(List.copyOf(terms), first.column());
  }

  private Yql unary() {
    Token t = peek();
    if (t.is("(")) {
      next();
      enter(t);
      Yql inner = or();
      expect(")", "')' to close the '(' at column " + t.column());
      depth--;
      return inner;
    }
    if (t.is("!")) {
      next();
      enter(t);
      Yql inner = unary();
      depth--;
      return new Yql.Not(inner, t.column());
    }
    Map<String, Object> annotations = Map.of();
    Token annotationStart = null;
    if (t.is("{")) {
      annotationStart = t;
      annotations = annotations();
    }
    Yql term = term(annotations);
    if (annotationStart != null) {
      return switch (term) {
        case Yql.NearestNeighbor nn ->
            new Yql.NearestNeighbor(
                nn.field(), nn.queryTensor(), annotations, annotationStart.column());
        case Yql.UserInput u -> new Yql.UserInput(u.text(), annotations, annotationStart.column());
        case Yql.WeakAnd w -> new Yql.WeakAnd(w.terms(), annotations, annotationStart.column());
        case Yql.Range r ->
            new Yql.Range(
                r.field(),
                r.low(),
                r.high(),
                r.lowInclusive(),
                r.highInclusive(),
                annotationStart.column());
        default ->
            throw error(
                annotationStart,
                "annotations are supported only on nearestNeighbor(), userInput(), weakAnd() and"
                    + " range()");
      };
    }
    return term;
  }

  private void enter(Token t) {
    if (++depth > maxDepth) {
      throw error(
          t, "parentheses nest deeper than the limit of " + maxDepth + " (--max-query-depth)");
    }
  }

  private Map<String, Object> annotations() {
    expect("{", "'{'");
    Map<String, Object> out = new LinkedHashMap<>();
    if (peek().is("}")) {
      next();
      return out;
    }
    while (true) {
      Token key = ident("an annotation name");
      expect(":", "':' after annotation '" + key.text() + "'");
      Token v = next();
      Object value =
          switch (v.kind()) {
            case INT -> parseLong(v);
            case NUMBER -> number(v).doubleValue();
            case STRING -> v.text();
            case IDENT -> {
              if (v.is("true") || v.is("false")) {
                yield Boolean.parseBoolean(v.text().toLowerCase(Locale.ROOT));
              }
              throw error(v, "expected a number, true, false or a string, found " + v.show());
            }
            default ->
                throw error(v, "expected a number, true, false or a string, found " + v.show());
          };
      if (out.put(key.text(), value) != null) {
        throw error(key, "annotation '" + key.text() + "' is given twice");
      }
      Token sep = next();
      if (sep.is("}")) {
        return out;
      }
      if (!sep.is(",")) {
        throw error(sep, "expected ',' or '}' in the annotations, found " + sep.show());
      }
    }
  }

  private static final List<String> COMPARISONS = List.of("<", "<=", ">", ">=", "=");

  private Yql term(Map<String, Object> annotations) {
    Token t = next();
    if (t.kind() == Kind.INT || t.kind() == Kind.NUMBER) {
      // 5 < price: the field on the right.
      Token op = next();
      if (!(op.kind() == Kind.PUNCT && COMPARISONS.contains(op.text()))) {
        throw error(
            op, "expected a comparison after the number " + t.text() + ", found " + op.show());
      }
      Token field = ident("a field name after '" + op.text() + "'");
      String flipped =
          switch (op.text()) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> "=";
          };
      return new Yql.Compare(field.text(), flipped, number(t), t.column());
    }
    if (t.kind() != Kind.IDENT) {
      throw error(
          t,
          "expected a condition (userQuery(), nearestNeighbor(), <field> contains \"...\", true or"
              + " '('), found "
              + t.show());
    }
    if (t.is("true")) {
      return new Yql.True(t.column());
    }
    if (t.is("false")) {
      return new Yql.False(t.column());
    }
    if (peek().is("(")) {
      if (t.is("userQuery")) {
        expect("(", "'(' after userQuery");
        expect(")", "')': userQuery() takes no arguments");
        return new Yql.UserQuery(t.column());
      }
      if (t.is("userInput")) {
        expect("(", "'(' after userInput");
        Yql.Value text = stringOrParam("a quoted string or @parameter in userInput()");
        expect(")", "')' after the userInput() text");
        return new Yql.UserInput(text, annotations, t.column());
      }
      if (t.is("nearestNeighbor")) {
        expect("(", "'(' after nearestNeighbor");
        String field = ident("the vector field name").text();
        expect(",", "',' between the field and the query tensor");
        String tensor = ident("the query tensor name").text();
        expect(")", "')' after the query tensor name");
        return new Yql.NearestNeighbor(field, tensor, Map.of(), t.column());
      }
      if (t.is("weakAnd") || t.is("rank")) {
        Token open = next();
        enter(open);
        List<Yql> terms = new ArrayList<>(List.of(or()));
        while (peek().is(",")) {
          next();
          terms.add(or());
        }
        expect(")", "')' to close " + t.text() + "(");
        depth--;
        return t.is("rank")
            ? new Yql.Rank(List.copyOf(terms), t.column())
            : new Yql.WeakAnd(List.copyOf(terms), Map.of(), t.column());
      }
      if (t.is("range")) {
        expect("(", "'(' after range");
        String field = ident("the field name in range()").text();
        expect(",", "',' after the field in range()");
        BigDecimal low = bound();
        expect(",", "',' between the bounds of range()");
        BigDecimal high = bound();
        expect(")", "')' after the bounds of range()");
        String bounds = annotations.get("bounds") instanceof String b ? b : "closed";
        boolean lowIn = bounds.equals("closed") || bounds.equals("rightOpen");
        boolean highIn = bounds.equals("closed") || bounds.equals("leftOpen");
        if (!lowIn && !highIn && !bounds.equals("open")) {
          throw error(t, "bounds '" + bounds + "' is unknown; use open, leftOpen or rightOpen");
        }
        return new Yql.Range(field, low, high, lowIn, highIn, t.column());
      }
      throw error(t, "'" + t.text() + "(' is not supported in this YQL subset");
    }
    Token op = next();
    if (op.is("contains")) {
      if (peek().is("text")) {
        next();
        expect("(", "'(' after text");
        Yql.Value v = stringOrParam("a quoted string or @parameter in text()");
        expect(")", "')' after the text() string");
        return new Yql.Contains(t.text(), v, true, t.column());
      }
      Token v = peek();
      if (v.kind() != Kind.STRING && v.kind() != Kind.PARAM) {
        throw error(v, "expected a quoted string after 'contains', found " + v.show());
      }
      return new Yql.Contains(
          t.text(), stringOrParam("a quoted string after 'contains'"), false, t.column());
    }
    if (op.is("in")) {
      expect("(", "'(' after 'in'");
      List<Yql.Value> values = new ArrayList<>();
      while (true) {
        Token v = next();
        values.add(
            switch (v.kind()) {
              case STRING -> Yql.Value.of(v.text());
              case PARAM -> Yql.Value.ref(v.text());
              case INT, NUMBER -> Yql.Value.of(number(v));
              default ->
                  throw error(v, "expected a string, a number or @parameter, found " + v.show());
            });
        if (!peek().is(",")) {
          break;
        }
        next();
      }
      expect(")", "')' to close the 'in' list");
      return new Yql.In(t.text(), List.copyOf(values), t.column());
    }
    if (op.kind() == Kind.PUNCT && COMPARISONS.contains(op.text())) {
      Token v = next();
      if (op.text().equals("=") && v.kind() == Kind.STRING) {
        return new Yql.Compare(t.text(), "=", v.text(), t.column());
      }
      if (op.text().equals("=") && (v.is("true") || v.is("false"))) {
        return new Yql.Compare(
            t.text(), "=", Boolean.parseBoolean(v.text().toLowerCase(Locale.ROOT)), t.column());
      }
      if (v.kind() != Kind.INT && v.kind() != Kind.NUMBER) {
        throw error(v, "expected a number after '" + op.text() + "', found " + v.show());
      }
      return new Yql.Compare(t.text(), op.text(), number(v), t.column());
    }
    throw error(
        op,
        "expected 'contains', 'in' or a comparison after '" + t.text() + "', found " + op.show());
  }

  private Yql.Value stringOrParam(String what) {
    Token v = next();
    return switch (v.kind()) {
      case STRING -> Yql.Value.of(v.text());
      case PARAM -> Yql.Value.ref(v.text());
      default -> throw error(v, "expected " + what + ", found " + v.show());
    };
  }

  /** A bound of {@code range()}: a number, or null for {@code Infinity}/{@code -Infinity}. */
  private BigDecimal bound() {
    Token v = next();
    if (v.is("Infinity") || (v.kind() == Kind.NUMBER && v.text().equals("-Infinity"))) {
      return null;
    }
    if (v.kind() != Kind.INT && v.kind() != Kind.NUMBER) {
      throw error(v, "expected a number or Infinity in range(), found " + v.show());
    }
    return number(v);
  }

  private BigDecimal number(Token v) {
    String s = v.text();
    if (s.endsWith("L") || s.endsWith("l")) {
      s = s.substring(0, s.length() - 1);
    }
    try {
      return new BigDecimal(s);
    } catch (NumberFormatException e) {
      throw error(v, "expected a number, found " + v.show());
    }
  }

  private long parseLong(Token v) {
    try {
      return Long.parseLong(v.text());
    } catch (NumberFormatException e) {
      throw error(v, "number " + v.text() + " is out of range");
    }
  }

  private int integer(String what) {
    Token v = next();
    if (v.kind() != Kind.INT) {
      throw error(v, "expected " + what + ", found " + v.show());
    }
    long l = parseLong(v);
    if (l < 0 || l > Integer.MAX_VALUE) {
      throw error(v, what + " " + l + " is outside [0, " + Integer.MAX_VALUE + "]");
    }
    return (int) l;
  }

  private Token ident(String what) {
    Token t = next();
    if (t.kind() != Kind.IDENT) {
      throw error(t, "expected " + what + ", found " + t.show());
    }
    return t;
  }

  private void keyword(String kw) {
    Token t = next();
    if (!(t.kind() == Kind.IDENT && t.is(kw))) {
      throw error(t, "expected '" + kw + "', found " + t.show());
    }
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** The end of the run of ASCII digits starting at {@code i}. */
  private static int digits(String s, int i) {
    int j = i;
    while (j < s.length() && isAsciiDigit(s.charAt(j))) {
      j++;
    }
    return j;
  }

  /**
   * Splits the statement into {@code out}, up to a {@code |} outside a string: the grouping that
   * follows is another language. Returns the index of that {@code |}, or -1.
   */
  private static int tokenize(String s, List<Token> out) {
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      int col = i + 1;
      if (c == '|') {
        out.add(new Token(Kind.END, "", col));
        return i;
      }
      if (Character.isWhitespace(c)) {
        i++;
      } else if (Character.isLetter(c) || c == '_') {
        i = identifier(s, i, col, out);
      } else if (isAsciiDigit(c) || (c == '-' && i + 1 < n && isAsciiDigit(s.charAt(i + 1)))) {
        int j = digits(s, i + 1);
        Kind kind = Kind.INT;
        if (j + 1 < n && s.charAt(j) == '.' && isAsciiDigit(s.charAt(j + 1))) {
          kind = Kind.NUMBER;
          j = digits(s, j + 1);
        }
        if (j < n && (s.charAt(j) == 'e' || s.charAt(j) == 'E')) {
          int k = j + 1;
          if (k < n && (s.charAt(k) == '+' || s.charAt(k) == '-')) {
            k++;
          }
          if (k < n && isAsciiDigit(s.charAt(k))) {
            kind = Kind.NUMBER;
            j = digits(s, k);
          }
        }
        if (kind == Kind.INT && j < n && (s.charAt(j) == 'L' || s.charAt(j) == 'l')) {
          j++; // Java's long suffix, as YQL allows it
        }
        if (j < n && (s.charAt(j) == '.' || Character.isLetter(s.charAt(j)))) {
          throw new YqlException(s, j + 1, "a number ends at a letter or '.' here");
        }
        out.add(new Token(kind, s.substring(i, j), col));
        i = j;
      } else if (s.startsWith("-Infinity", i)) {
        out.add(new Token(Kind.NUMBER, "-Infinity", col));
        i += "-Infinity".length();
      } else if (c == '@' && i + 1 < n && Character.isLetter(s.charAt(i + 1))) {
        int j = i + 1;
        while (j < n
            && (Character.isLetterOrDigit(s.charAt(j))
                || s.charAt(j) == '_'
                || s.charAt(j) == '.'
                || s.charAt(j) == '-')) {
          j++;
        }
        out.add(new Token(Kind.PARAM, s.substring(i + 1, j), col));
        i = j;
      } else if (c == '"' || c == '\'') {
        i = string(s, s, i, col, out);
      } else if ((c == '<' || c == '>' || c == '!') && i + 1 < n && s.charAt(i + 1) == '=') {
        out.add(new Token(Kind.PUNCT, s.substring(i, i + 2), col));
        i += 2;
      } else if ("(){},:;*<>=!".indexOf(c) >= 0) {
        out.add(new Token(Kind.PUNCT, String.valueOf(c), col));
        i++;
      } else {
        throw new YqlException(s, col, "unexpected character '" + c + "'");
      }
    }
    out.add(new Token(Kind.END, "", n + 1));
    return -1;
  }
}
