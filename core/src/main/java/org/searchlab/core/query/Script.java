package org.searchlab.core.query;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Source;

/**
 * A {@code script_score} script: the subset of Painless that vector scoring uses, parsed once and
 * evaluated per document in {@code double} arithmetic, as Painless does. Supported: numeric
 * literals, {@code params.name} and {@code params['name']}, {@code _score}, local variables ({@code
 * double v = ...;}), {@code return}, {@code if}/{@code else} with blocks, the operators {@code + -
 * * / %}, comparisons, {@code && || !} and {@code ?:}, {@code Math.E}, {@code Math.PI} and {@code
 * Math.}{@code log}, {@code log10}, {@code exp}, {@code sqrt}, {@code abs}, {@code max}, {@code
 * min}, {@code pow}, and Elasticsearch's functions {@code cosineSimilarity(v, 'field')}, {@code
 * dotProduct(v, 'field')}, {@code l2norm(v, 'field')}, {@code l1norm(v, 'field')}, {@code
 * sigmoid(value, k, a)} and {@code saturation(value, k)}. A source with no {@code return} is one
 * expression, its value the result. Anything else is a 400 naming what is not supported.
 *
 * <p>Immutable and thread-safe once parsed.
 */
public final class Script {
  /** The longest script source accepted. */
  public static final int MAX_SOURCE = 4096;

  /** What a document gives a script. Not thread-safe; one per evaluating thread. */
  public interface Context {
    /**
     * The document's vector in {@code field} as indexed (the original, not normalised), or null.
     */
    float[] vector(String field);

    /** The document's score from the wrapped query. */
    double score();
  }

  private final String source;
  private final Node program;
  private final Set<String> vectorFields;

  private Script(String source, Node program, Set<String> vectorFields) {
    this.source = source;
    this.program = program;
    this.vectorFields = Set.copyOf(vectorFields);
  }

  /**
   * Parses {@code source} with {@code params} (a {@link Source} tree map: numbers, and numeric
   * arrays for query vectors).
   */
  public static Script parse(String source, Map<String, Object> params) {
    if (source == null || source.isBlank()) {
      throw new InvalidRequestException("[script.source] is missing");
    }
    if (source.length() > MAX_SOURCE) {
      throw new InvalidRequestException(
          "[script.source] is " + source.length() + " characters long; the limit is " + MAX_SOURCE);
    }
    Parser p = new Parser(source, params == null ? Map.of() : params);
    Node n = p.program();
    return new Script(source, n, p.vectorFields);
  }

  /** The script's source text. */
  public String source() {
    return source;
  }

  /** The vector fields the script reads. */
  public Set<String> vectorFields() {
    return vectorFields;
  }

  /** The script's value for one document. */
  public double evaluate(Context ctx) {
    Frame f = new Frame(ctx);
    try {
      double v = program.eval(f);
      return f.returned ? f.result : v;
    } catch (ReturnSignal r) {
      return r.value;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Script s
        && s.source.equals(source)
        && s.program.toString().equals(program.toString());
  }

  @Override
  public int hashCode() {
    return source.hashCode();
  }

  @Override
  public String toString() {
    return source;
  }

  // ----------------------------------------------------------------------------------------------

  private static final class Frame {
    final Context ctx;
    final Map<String, Double> vars = new HashMap<>();
    boolean returned;
    double result;

    Frame(Context ctx) {
      this.ctx = ctx;
    }
  }

  private static final class ReturnSignal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final double value;

    ReturnSignal(double value) {
      super(null, null, false, false);
      this.value = value;
    }
  }

  private interface Node {
    double eval(Frame f);
  }

  private record Const(double v) implements Node {
    public double eval(Frame f) {
      return v;
    }
  }

  private record Var(String name) implements Node {
    public double eval(Frame f) {
      Double v = f.vars.get(name);
      if (v == null) {
        throw new InvalidRequestException(
            "script variable [" + name + "] is used before it is set");
      }
      return v;
    }
  }

  private record Score() implements Node {
    public double eval(Frame f) {
      return f.ctx.score();
    }
  }

  private record Assign(String name, Node value) implements Node {
    public double eval(Frame f) {
      double v = value.eval(f);
      f.vars.put(name, v);
      return v;
    }
  }

  private record Return(Node value) implements Node {
    public double eval(Frame f) {
      throw new ReturnSignal(value.eval(f));
    }
  }

  private record Block(List<Node> statements) implements Node {
    public double eval(Frame f) {
      double last = Double.NaN;
      for (Node n : statements) {
        last = n.eval(f);
      }
      return last;
    }
  }

  private record If(Node cond, Node then, Node otherwise) implements Node {
    public double eval(Frame f) {
      if (cond.eval(f) != 0) {
        return then.eval(f);
      }
      return otherwise == null ? Double.NaN : otherwise.eval(f);
    }
  }

  private record Unary(char op, Node a) implements Node {
    public double eval(Frame f) {
      double v = a.eval(f);
      return op == '-' ? -v : (v == 0 ? 1 : 0);
    }
  }

  private record Binary(String op, Node a, Node b) implements Node {
    public double eval(Frame f) {
      if (op.equals("&&")) {
        return a.eval(f) != 0 && b.eval(f) != 0 ? 1 : 0;
      }
      if (op.equals("||")) {
        return a.eval(f) != 0 || b.eval(f) != 0 ? 1 : 0;
      }
      double x = a.eval(f);
      double y = b.eval(f);
      return switch (op) {
        case "+" -> x + y;
        case "-" -> x - y;
        case "*" -> x * y;
        case "/" -> x / y;
        case "%" -> x % y;
        case "<" -> x < y ? 1 : 0;
        case "<=" -> x <= y ? 1 : 0;
        case ">" -> x > y ? 1 : 0;
        case ">=" -> x >= y ? 1 : 0;
        case "==" -> x == y ? 1 : 0;
        case "!=" -> x != y ? 1 : 0;
        default -> throw new AssertionError(op);
      };
    }
  }

  private record Ternary(Node cond, Node a, Node b) implements Node {
    public double eval(Frame f) {
      return cond.eval(f) != 0 ? a.eval(f) : b.eval(f);
    }
  }

  private record MathCall(String name, List<Node> args) implements Node {
    public double eval(Frame f) {
      double a = args.get(0).eval(f);
      return switch (name) {
        case "log" -> Math.log(a);
        case "log10" -> Math.log10(a);
        case "exp" -> Math.exp(a);
        case "sqrt" -> Math.sqrt(a);
        case "abs" -> Math.abs(a);
        case "max" -> Math.max(a, args.get(1).eval(f));
        case "min" -> Math.min(a, args.get(1).eval(f));
        case "pow" -> Math.pow(a, args.get(1).eval(f));
        case "sigmoid" -> {
          double k = args.get(1).eval(f);
          double e = args.get(2).eval(f);
          yield Math.pow(a, e) / (Math.pow(k, e) + Math.pow(a, e));
        }
        case "saturation" -> a / (args.get(1).eval(f) + a);
        default -> throw new AssertionError(name);
      };
    }
  }

  private record VectorCall(String name, float[] query, String field) implements Node {
    // The vector's values, not the array's identity: Script.equals compares programs by this.
    @Override
    public String toString() {
      return name + "(" + java.util.Arrays.toString(query) + ", '" + field + "')";
    }

    public double eval(Frame f) {
      float[] v = f.ctx.vector(field);
      if (v == null) {
        throw new InvalidRequestException(
            "A document doesn't have a value for a vector field [" + field + "]!");
      }
      if (v.length != query.length) {
        throw new InvalidRequestException(
            "The query vector has a different number of dimensions ["
                + query.length
                + "] than the document vectors ["
                + v.length
                + "].");
      }
      return switch (name) {
        case "dotProduct" -> VectorUtil.dotProduct(query, v);
        case "cosineSimilarity" -> VectorUtil.cosine(query, v);
        case "l2norm" -> Math.sqrt(VectorUtil.squareDistance(query, v));
        case "l1norm" -> {
          double s = 0;
          for (int i = 0; i < v.length; i++) {
            s += Math.abs(query[i] - v[i]);
          }
          yield s;
        }
        default -> throw new AssertionError(name);
      };
    }
  }

  // ----------------------------------------------------------------------------------------------

  private static final class Parser {
    private final String src;
    private final Map<String, Object> params;
    final Set<String> vectorFields = new LinkedHashSet<>();
    private final Set<String> declared = new java.util.HashSet<>();
    private int at;
    private int nodes;

    Parser(String src, Map<String, Object> params) {
      this.src = src;
      this.params = params;
    }

    Node program() {
      List<Node> statements = new ArrayList<>();
      boolean hasReturn = src.matches("(?s).*\\breturn\\b.*");
      if (!hasReturn) {
        Node e = expression();
        skipSpace();
        if (peek() == ';') {
          at++;
        }
        expectEnd();
        return e;
      }
      while (true) {
        skipSpace();
        if (at >= src.length()) {
          break;
        }
        statements.add(statement());
      }
      return new Block(statements);
    }

    private Node statement() {
      count();
      skipSpace();
      if (peek() == '{') {
        at++;
        List<Node> body = new ArrayList<>();
        while (true) {
          skipSpace();
          if (peek() == '}') {
            at++;
            break;
          }
          if (at >= src.length()) {
            throw error("a block is not closed");
          }
          body.add(statement());
        }
        return new Block(body);
      }
      String word = peekWord();
      switch (word) {
        case "return" -> {
          at += word.length();
          Node e = expression();
          semicolon();
          return new Return(e);
        }
        case "if" -> {
          at += word.length();
          expect('(');
          Node cond = expression();
          expect(')');
          Node then = statement();
          skipSpace();
          Node otherwise = null;
          if (peekWord().equals("else")) {
            at += 4;
            otherwise = statement();
          }
          return new If(cond, then, otherwise);
        }
        case "double", "float", "def", "var", "int", "long" -> {
          at += word.length();
          skipSpace();
          String name = word();
          expect('=');
          Node e = expression();
          semicolon();
          declared.add(name);
          return new Assign(name, e);
        }
        default -> {
          if (!word.isEmpty() && declared.contains(word)) {
            int save = at;
            at += word.length();
            skipSpace();
            if (peek() == '=' && (at + 1 >= src.length() || src.charAt(at + 1) != '=')) {
              at++;
              Node e = expression();
              semicolon();
              return new Assign(word, e);
            }
            at = save;
          }
          Node e = expression();
          semicolon();
          return e;
        }
      }
    }

    private void semicolon() {
      skipSpace();
      if (peek() == ';') {
        at++;
      } else if (peek() != '}' && at < src.length()) {
        throw error("expected ';'");
      }
    }

    private Node expression() {
      count();
      Node c = or();
      skipSpace();
      if (peek() == '?') {
        at++;
        Node a = expression();
        expect(':');
        Node b = expression();
        return new Ternary(c, a, b);
      }
      return c;
    }

    private Node or() {
      Node a = and();
      while (consume("||")) {
        a = new Binary("||", a, and());
      }
      return a;
    }

    private Node and() {
      Node a = comparison();
      while (consume("&&")) {
        a = new Binary("&&", a, comparison());
      }
      return a;
    }

    private Node comparison() {
      Node a = additive();
      for (String op : new String[] {"<=", ">=", "==", "!=", "<", ">"}) {
        if (consume(op)) {
          return new Binary(op, a, additive());
        }
      }
      return a;
    }

    private Node additive() {
      Node a = term();
      while (true) {
        skipSpace();
        char c = peek();
        if (c == '+' || c == '-') {
          at++;
          a = new Binary(String.valueOf(c), a, term());
        } else {
          return a;
        }
      }
    }

    private Node term() {
      Node a = unary();
      while (true) {
        skipSpace();
        char c = peek();
        if (c == '*' || c == '/' || c == '%') {
          at++;
          a = new Binary(String.valueOf(c), a, unary());
        } else {
          return a;
        }
      }
    }

    private Node unary() {
      count();
      skipSpace();
      char c = peek();
      if (c == '-' || c == '!') {
        at++;
        return new Unary(c, unary());
      }
      if (c == '+') {
        at++;
        return unary();
      }
      return primary();
    }

    private Node primary() {
      skipSpace();
      char c = peek();
      if (c == '(') {
        at++;
        // A cast such as (double) is ignored: everything is a double.
        String w = peekWord();
        if (List.of("double", "float", "int", "long").contains(w)) {
          int save = at;
          at += w.length();
          skipSpace();
          if (peek() == ')') {
            at++;
            return unary();
          }
          at = save;
        }
        Node e = expression();
        expect(')');
        return e;
      }
      if (Character.isDigit(c) || c == '.') {
        return number();
      }
      String w = word();
      switch (w) {
        case "_score" -> {
          return new Score();
        }
        case "params" -> {
          return new Const(number(param()));
        }
        case "Math" -> {
          expect('.');
          String fn = word();
          if (fn.equals("E")) {
            return new Const(Math.E);
          }
          if (fn.equals("PI")) {
            return new Const(Math.PI);
          }
          int arity = fn.equals("max") || fn.equals("min") || fn.equals("pow") ? 2 : 1;
          if (!List.of("log", "log10", "exp", "sqrt", "abs", "max", "min", "pow").contains(fn)) {
            throw error("Math." + fn + " is not supported");
          }
          return new MathCall(fn, args(arity));
        }
        case "sigmoid" -> {
          return new MathCall("sigmoid", args(3));
        }
        case "saturation" -> {
          return new MathCall("saturation", args(2));
        }
        case "cosineSimilarity", "dotProduct", "l2norm", "l1norm" -> {
          expect('(');
          skipSpace();
          if (!word().equals("params")) {
            throw error(w + "'s first argument must be a query vector from params");
          }
          Object v = param();
          float[] q = Source.floats(v);
          if (q == null || q.length == 0) {
            throw error(w + "'s query vector is not an array of numbers");
          }
          for (float x : q) {
            if (!Float.isFinite(x)) {
              throw error(w + "'s query vector holds a value that is not finite");
            }
          }
          expect(',');
          String field = stringLiteral();
          expect(')');
          vectorFields.add(field);
          return new VectorCall(w, q, field);
        }
        default -> {
          if (declared.contains(w)) {
            return new Var(w);
          }
          throw error(
              w.isEmpty()
                  ? "unexpected character '" + (at < src.length() ? src.charAt(at) : ' ') + "'"
                  : "[" + w + "] is not supported");
        }
      }
    }

    private List<Node> args(int n) {
      expect('(');
      List<Node> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          expect(',');
        }
        out.add(expression());
      }
      expect(')');
      return out;
    }

    private Object param() {
      skipSpace();
      String name;
      if (peek() == '.') {
        at++;
        name = word();
      } else if (peek() == '[') {
        at++;
        name = stringLiteral();
        expect(']');
      } else {
        throw error("expected params.name or params['name']");
      }
      if (!params.containsKey(name)) {
        throw error("params has no [" + name + "]");
      }
      return params.get(name);
    }

    private double number(Object v) {
      if (v instanceof Number n) {
        return n.doubleValue();
      }
      throw error("a parameter used as a number is not one");
    }

    private Node number() {
      int start = at;
      while (at < src.length()
          && (Character.isDigit(src.charAt(at))
              || src.charAt(at) == '.'
              || src.charAt(at) == 'e'
              || src.charAt(at) == 'E'
              || ((src.charAt(at) == '-' || src.charAt(at) == '+')
                  && (src.charAt(at - 1) == 'e' || src.charAt(at - 1) == 'E')))) {
        at++;
      }
      String s = src.substring(start, at);
      if (at < src.length() && "dDfFlL".indexOf(src.charAt(at)) >= 0) {
        at++;
      }
      try {
        return new Const(Double.parseDouble(s));
      } catch (NumberFormatException e) {
        throw error("[" + s + "] is not a number");
      }
    }

    private String stringLiteral() {
      skipSpace();
      char q = peek();
      if (q != '\'' && q != '"') {
        throw error("expected a quoted field name");
      }
      int end = src.indexOf(q, at + 1);
      if (end < 0) {
        throw error("a string is not closed");
      }
      String s = src.substring(at + 1, end);
      at = end + 1;
      return s;
    }

    private String word() {
      skipSpace();
      int start = at;
      while (at < src.length()
          && (Character.isLetterOrDigit(src.charAt(at)) || src.charAt(at) == '_')) {
        at++;
      }
      return src.substring(start, at);
    }

    private String peekWord() {
      int save = at;
      String w = word();
      at = save;
      skipSpace();
      return w;
    }

    private boolean consume(String op) {
      skipSpace();
      if (src.startsWith(op, at)) {
        at += op.length();
        return true;
      }
      return false;
    }

    private void expect(char c) {
      skipSpace();
      if (peek() != c) {
        throw error("expected '" + c + "'");
      }
      at++;
    }

    private void expectEnd() {
      skipSpace();
      if (at < src.length()) {
        throw error("unexpected text after the expression");
      }
    }

    private char peek() {
      return at < src.length() ? src.charAt(at) : '\0';
    }

    private void skipSpace() {
      while (at < src.length() && Character.isWhitespace(src.charAt(at))) {
        at++;
      }
    }

    private void count() {
      if (++nodes > 10_000) {
        throw error("the script is too complex");
      }
    }

    private InvalidRequestException error(String what) {
      String shown = src.length() > 60 ? src.substring(0, 57) + "..." : src;
      return new InvalidRequestException(
          "script_score script: "
              + what
              + " at offset "
              + at
              + " of ["
              + shown
              + "]; supported: the Painless subset of vector functions (cosineSimilarity,"
              + " dotProduct, l2norm, l1norm), arithmetic, Math, sigmoid, saturation, _score,"
              + " params, variables and if/return");
    }
  }
}
