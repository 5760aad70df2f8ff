package org.searchlab.server.vespa;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A recursive-descent parser for the subset of Vespa's grouping language the server translates (the
 * part of a YQL statement after {@code |}, or the {@code select} request parameter). Errors are
 * {@link YqlException}s naming the 1-based column in the whole statement. Not thread-safe; one
 * instance per expression ({@link #parse} creates it).
 *
 * <pre>
 * request    := op (';' op)*
 * op         := ('all' | 'each') '(' [ 'group' '(' groupBy ')' ] clause* op* ')' [ 'as' '(' IDENT ')' ]
 * clause     := 'max' '(' (INT | 'inf') ')' | 'order' '(' order (',' order)* ')'
 *             | 'output' '(' aggr (',' aggr)* ')' | 'precision' '(' INT ')'
 * groupBy    := IDENT | 'predefined' '(' IDENT ',' bucket (',' bucket)* ')'
 * order      := ['+' | '-'] aggr
 * aggr       := ('count' '(' ')' | ('sum' | 'avg' | 'min' | 'max') '(' IDENT ')') [ 'as' '(' IDENT ')' ]
 * bucket     := 'bucket' ('(' | '[' | '&lt;') bound [',' bound] (')' | '&gt;' | ']')
 * bound      := NUMBER | '-inf' | 'inf'
 * </pre>
 *
 * Everything else of Vespa's language ({@code where}, {@code filter}, {@code alias}, expressions
 * other than an attribute, string or raw buckets, {@code summary()}, {@code stddev}, ...) is
 * refused with a message naming it; the grammar is Vespa's {@code GroupingParser.jj}, cut down.
 */
final class GroupingParser extends TokenParser {
  /** The aggregators of {@code output()} and {@code order()}. */
  enum AggrKind {
    COUNT,
    SUM,
    AVG,
    MIN,
    MAX
  }

  /**
   * One aggregator: {@code count()} or a metric over a field.
   *
   * @param field the attribute, null for {@code count()}
   * @param label the {@code as(...)} label, or null for the expression itself ({@code avg(price)})
   */
  record Aggr(AggrKind kind, String field, String label, int column) {
    /** How Vespa names the output in a group's {@code fields}. */
    String name() {
      if (label != null) {
        return label;
      }
      return kind == AggrKind.COUNT
          ? "count()"
          : kind.name().toLowerCase(Locale.ROOT) + "(" + field + ")";
    }
  }

  /** One key of {@code order()}: an aggregator, descending with {@code -}. */
  record Order(Aggr aggr, boolean descending) {}

  /**
   * One bucket of {@code predefined()} as Vespa resolves it: the half-open interval {@code [from,
   * to)} (an exclusive start or an inclusive end already moved to the next value of the type).
   *
   * @param from the lower bound, null for {@code -inf}
   * @param to the upper bound, null for {@code inf}
   * @param integral whether the bounds are integers (a {@code long_bucket}) rather than decimals
   */
  record Bucket(BigDecimal from, BigDecimal to, boolean integral) {}

  /**
   * What {@code group(...)} groups by: an attribute's values, or the buckets of {@code
   * predefined(attribute, ...)} (empty for a plain attribute).
   */
  record GroupBy(String field, List<Bucket> buckets, String text, int column) {
    boolean predefined() {
      return !buckets.isEmpty();
    }
  }

  /**
   * An {@code all(...)} or {@code each(...)}.
   *
   * @param groupBy the {@code group(...)}, or null
   * @param max the {@code max(...)}: a count, {@link #UNLIMITED} for {@code inf}, or null for the
   *     default
   * @param label the {@code as(...)} label, or null
   */
  record Op(
      boolean each,
      GroupBy groupBy,
      Integer max,
      List<Order> order,
      List<Aggr> outputs,
      List<Op> children,
      String label,
      int column) {}

  /** {@code max(inf)}. */
  static final int UNLIMITED = -1;

  private final int maxDepth;
  private int depth;

  private GroupingParser(String yql, String text, int offset, int maxDepth) {
    super(yql, tokenize(yql, text, offset));
    this.maxDepth = maxDepth;
  }

  /**
   * Parses a grouping request.
   *
   * @param yql the whole statement, for error pointers
   * @param text the grouping expression
   * @param offset the 0-based index of {@code text} in {@code yql}
   * @param maxDepth the deepest nesting of {@code all}/{@code each}; the parser recurses once per
   *     level, so this bound also keeps a hostile expression from overflowing the stack
   */
  static List<Op> parse(String yql, String text, int offset, int maxDepth) {
    GroupingParser p = new GroupingParser(yql, text, offset, maxDepth);
    List<Op> roots = new ArrayList<>();
    if (p.peek().kind() == Kind.END) {
      throw p.error(p.peek(), "the grouping expression after '|' is empty; expected 'all('");
    }
    roots.add(p.op());
    while (p.peek().is(";")) {
      p.next();
      roots.add(p.op());
    }
    Token end = p.peek();
    if (end.kind() != Kind.END) {
      throw p.error(end, "expected ';' or the end of the grouping expression, found " + end.show());
    }
    return List.copyOf(roots);
  }

  private Op op() {
    Token t = next();
    if (!t.is("all") && !t.is("each")) {
      throw error(t, "expected 'all' or 'each', found " + t.show());
    }
    if (++depth > maxDepth) {
      throw error(
          t, "all()/each() nest deeper than the limit of " + maxDepth + " (--max-query-depth)");
    }
    expect("(", "'(' after " + t.text());
    GroupBy groupBy = null;
    if (peek().is("group")) {
      next();
      expect("(", "'(' after group");
      groupBy = groupBy();
      expect(")", "')' to close group(");
    }
    Integer max = null;
    List<Order> order = new ArrayList<>();
    List<Aggr> outputs = new ArrayList<>();
    List<Op> children = new ArrayList<>();
    while (true) {
      Token c = peek();
      if (c.is("max")) {
        next();
        expect("(", "'(' after max");
        Token v = next();
        if (v.is("inf")) {
          max = UNLIMITED;
        } else {
          max = nonNegative(v, "max()");
        }
        expect(")", "')' after the max() count");
      } else if (c.is("order")) {
        next();
        expect("(", "'(' after order");
        do {
          boolean descending = false;
          if (peek().is("-") || peek().is("+")) {
            descending = next().is("-");
          }
          order.add(new Order(aggr(), descending));
        } while (skip(","));
        expect(")", "')' to close order(");
      } else if (c.is("output")) {
        next();
        expect("(", "'(' after output");
        do {
          outputs.add(aggr());
        } while (skip(","));
        expect(")", "')' to close output(");
      } else if (c.is("precision")) {
        // Accepted and without effect: one node computes every group exactly.
        next();
        expect("(", "'(' after precision");
        nonNegative(next(), "precision()");
        expect(")", "')' after the precision() count");
      } else if (c.is("all") || c.is("each")) {
        children.add(op());
      } else if (c.is(")")) {
        break;
      } else if (c.kind() == Kind.IDENT
          && List.of("where", "filter", "keep", "alias", "hint", "accuracy").contains(c.text())) {
        throw error(c, "'" + c.text() + "(' is not supported in this grouping subset");
      } else {
        throw error(
            c,
            "expected max(), order(), output(), precision(), all(), each() or ')', found "
                + c.show());
      }
    }
    expect(")", "')' to close " + t.text() + "(");
    String label = label();
    depth--;
    return new Op(
        t.is("each"),
        groupBy,
        max,
        List.copyOf(order),
        List.copyOf(outputs),
        List.copyOf(children),
        label,
        t.column());
  }

  private GroupBy groupBy() {
    Token t = next();
    if (t.is("predefined")) {
      expect("(", "'(' after predefined");
      Token field = attribute("the attribute predefined() buckets");
      expect(",", "',' after the attribute in predefined()");
      // Vespa's reference grammar wraps the buckets in parentheses; its parser does not. Take both.
      boolean wrapped = skip("(");
      List<Bucket> buckets = new ArrayList<>();
      StringBuilder text = new StringBuilder("predefined(" + field.text());
      do {
        buckets.add(bucket(text));
      } while (skip(","));
      if (wrapped) {
        expect(")", "')' after the buckets");
      }
      expect(")", "')' to close predefined(");
      text.append(')');
      for (Bucket b : buckets) {
        if (b.integral() != buckets.get(0).integral()) {
          throw error(
              t,
              "Bucket type mismatch: predefined() buckets are all integers or all decimals,"
                  + " not both");
        }
      }
      return new GroupBy(field.text(), List.copyOf(buckets), text.toString(), t.column());
    }
    if (t.kind() != Kind.IDENT || peek().is("(")) {
      throw error(
          t,
          "group() takes an attribute or predefined(attribute, bucket...) here; "
              + (t.kind() == Kind.IDENT ? "'" + t.text() + "(' is" : t.show() + " is")
              + " not supported in this grouping subset");
    }
    return new GroupBy(t.text(), List.of(), t.text(), t.column());
  }

  /** One {@code bucket...}, resolved to {@code [from, to)} as Vespa's BucketResolver does. */
  private Bucket bucket(StringBuilder text) {
    Token kw = next();
    if (!kw.is("bucket")) {
      throw error(kw, "expected 'bucket', found " + kw.show());
    }
    Token open = next();
    if (!(open.is("(") || open.is("[") || open.is("<"))) {
      throw error(open, "expected '(', '[' or '<' after bucket, found " + open.show());
    }
    boolean fromInclusive = !open.is("<");
    Token fromToken = peek();
    Bound from = bound(false);
    Bound to = null;
    if (skip(",")) {
      to = bound(true);
    }
    Token close = next();
    if (!(close.is(")") || close.is(">") || close.is("]"))) {
      throw error(close, "expected ')', '>' or ']' to close the bucket, found " + close.show());
    }
    boolean toInclusive = close.is("]") || to == null;
    if (to == null) {
      if (from.infinite()) {
        throw error(fromToken, "a bucket of one value cannot be -inf");
      }
      to = from;
    }
    if (from.value != null && to.value != null && from.integral() != to.integral()) {
      throw error(fromToken, "Bucket type mismatch: both bounds are integers or both decimals");
    }
    boolean integral = from.value != null ? from.integral() : to.value == null || to.integral();
    BigDecimal lo = from.value == null || fromInclusive ? from.value : nextValue(from, integral);
    BigDecimal hi = to.value == null || !toInclusive ? to.value : nextValue(to, integral);
    text.append(", bucket[")
        .append(lo == null ? "-inf" : show(lo, integral))
        .append(", ")
        .append(hi == null ? "inf" : show(hi, integral))
        .append('>');
    return new Bucket(lo, hi, integral);
  }

  /** A bound as Vespa writes it: a long's digits, a double as Java prints it. */
  static String show(BigDecimal v, boolean integral) {
    return integral ? v.toBigInteger().toString() : Double.toString(v.doubleValue());
  }

  /** The next value of a bound's type: {@code v + 1} for a long, the next double up otherwise. */
  private static BigDecimal nextValue(Bound b, boolean integral) {
    if (integral) {
      return b.value.add(BigDecimal.ONE);
    }
    return new BigDecimal(Math.nextUp(b.value.doubleValue()));
  }

  /** A bucket bound: a number (its text says whether it is an integer), or null for ±inf. */
  private record Bound(BigDecimal value, boolean integral) {
    boolean infinite() {
      return value == null;
    }
  }

  private Bound bound(boolean upper) {
    Token t = next();
    if (t.is("inf") || t.is("-inf")) {
      if (t.is("inf") != upper) {
        throw error(
            t,
            (upper ? "the upper" : "the lower")
                + " bound of a bucket cannot be "
                + t.text()
                + "; use "
                + (upper ? "inf" : "-inf"));
      }
      return new Bound(null, true);
    }
    boolean negative = false;
    if (t.is("-")) {
      negative = true;
      t = next();
    }
    if (t.kind() == Kind.STRING || t.is("{")) {
      throw error(
          t, "string and raw buckets are not supported; predefined() takes numeric buckets here");
    }
    if (t.kind() != Kind.NUMBER) {
      throw error(t, "expected a number, -inf or inf in the bucket, found " + t.show());
    }
    String s = t.text();
    if (s.endsWith("L") || s.endsWith("l")) {
      s = s.substring(0, s.length() - 1);
    }
    BigDecimal v;
    try {
      v = new BigDecimal(s);
    } catch (NumberFormatException e) {
      throw error(t, "expected a number, found " + t.show());
    }
    boolean integral = s.indexOf('.') < 0 && s.indexOf('e') < 0 && s.indexOf('E') < 0;
    if (integral && v.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0) {
      throw error(t, "the bucket bound " + s + " is out of the range of a long");
    }
    if (!integral && !Double.isFinite(v.doubleValue())) {
      throw error(t, "the bucket bound " + s + " is out of the range of a double");
    }
    return new Bound(negative ? v.negate() : v, integral);
  }

  private Aggr aggr() {
    Token t = next();
    AggrKind kind =
        switch (t.kind() == Kind.IDENT ? t.text() : "") {
          case "count" -> AggrKind.COUNT;
          case "sum" -> AggrKind.SUM;
          case "avg" -> AggrKind.AVG;
          case "min" -> AggrKind.MIN;
          case "max" -> AggrKind.MAX;
          case "summary" ->
              throw error(
                  t, "summary() hit lists are not supported in this grouping subset; use hits=");
          case "stddev", "xor", "quantiles", "argmin", "argmax" ->
              throw error(t, "'" + t.text() + "(' is not supported in this grouping subset");
          default ->
              throw error(
                  t,
                  "expected count(), sum(), avg(), min() or max() of an attribute, found "
                      + t.show());
        };
    expect("(", "'(' after " + t.text());
    String field = null;
    if (kind == AggrKind.COUNT) {
      expect(")", "')': count() takes no argument");
    } else {
      Token f = next();
      if (f.is("relevance")) {
        throw error(
            f,
            t.text()
                + "(relevance()) is not supported: groups are not scored here; order by count()"
                + " or a metric of an attribute");
      }
      if (f.kind() != Kind.IDENT || peek().is("(")) {
        throw error(
            f,
            t.text()
                + "() takes an attribute here; "
                + f.show()
                + " is not supported in this grouping subset");
      }
      field = f.text();
      expect(")", "')' after the attribute of " + t.text() + "()");
    }
    String label = label();
    return new Aggr(kind, field, label, t.column());
  }

  /** An optional {@code as(label)}: the label, or null. */
  private String label() {
    if (!peek().is("as")) {
      return null;
    }
    next();
    expect("(", "'(' after as");
    Token l = next();
    if (l.kind() != Kind.IDENT && l.kind() != Kind.STRING) {
      throw error(l, "expected a label, found " + l.show());
    }
    if (l.text().isEmpty() || l.text().length() > 256) {
      throw error(l, "a label has 1 to 256 characters");
    }
    expect(")", "')' after the label");
    return l.text();
  }

  private Token attribute(String what) {
    Token t = next();
    if (t.kind() != Kind.IDENT || peek().is("(")) {
      throw error(t, "expected " + what + ", an attribute name, found " + t.show());
    }
    return t;
  }

  private int nonNegative(Token v, String what) {
    if (v.kind() != Kind.NUMBER || !v.text().matches("\\d+[lL]?")) {
      throw error(v, "expected a whole number in " + what + ", found " + v.show());
    }
    String s = v.text().replaceAll("[lL]$", "");
    try {
      long l = Long.parseLong(s);
      if (l <= Integer.MAX_VALUE) {
        return (int) l;
      }
    } catch (NumberFormatException e) {
      // falls through to the range error
    }
    throw error(v, what + " " + s + " is outside [0, " + Integer.MAX_VALUE + "]");
  }

  private static List<Token> tokenize(String yql, String s, int offset) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      int col = offset + i + 1;
      if (Character.isWhitespace(c)) {
        i++;
      } else if (s.startsWith("-inf", i)
          && (i + 4 == n || !Character.isLetterOrDigit(s.charAt(i + 4)))) {
        out.add(new Token(Kind.IDENT, "-inf", col));
        i += 4;
      } else if (Character.isLetter(c) || c == '_') {
        i = identifier(s, i, col, out);
      } else if (c >= '0' && c <= '9') {
        int j = i + 1;
        while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '.')) {
          char d = s.charAt(j);
          if ((d == 'e' || d == 'E') && j + 1 < n && "+-".indexOf(s.charAt(j + 1)) >= 0) {
            j++; // an exponent's sign
          }
          j++;
        }
        out.add(new Token(Kind.NUMBER, s.substring(i, j), col));
        i = j;
      } else if (c == '"' || c == '\'') {
        i = string(yql, s, i, col, out);
      } else if ("()[]<>{},;+-$=".indexOf(c) >= 0) {
        out.add(new Token(Kind.PUNCT, String.valueOf(c), col));
        i++;
      } else {
        throw new YqlException(yql, col, "unexpected character '" + c + "' in the grouping");
      }
    }
    out.add(new Token(Kind.END, "", offset + n + 1));
    return out;
  }
}
