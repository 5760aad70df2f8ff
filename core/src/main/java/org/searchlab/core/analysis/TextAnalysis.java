package org.searchlab.core.analysis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.snowball.SnowballFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * The analyzers both stores share, by name. {@value #NAME} is the benchmark's analyzer and the
 * default of every {@code text} field: standard tokenizer, then lowercase, asciifolding and the
 * Snowball English (porter2) stemmer — what Elasticsearch builds for {@code
 * {"tokenizer":"standard","filter":["lowercase","asciifolding",{"type":"stemmer","language":
 * "porter2"}]}}. No stop words, as in the benchmark. {@value #STANDARD} is Elasticsearch's {@code
 * standard} analyzer: standard tokenizer and lowercase, no stop words (its default).
 *
 * <p>Thread-safe: {@link #analyzer()} is a Lucene {@link Analyzer}, which keeps per-thread token
 * stream components; {@link #tokens(String)} may be called from any thread.
 */
public final class TextAnalysis {
  /** The analyzer name in the benchmark's Elasticsearch mapping. */
  public static final String NAME = "lowercase_normalize_stem";

  /** Elasticsearch's {@code standard} analyzer. */
  public static final String STANDARD = "standard";

  private static final Analyzer ANALYZER =
      new Analyzer() {
        @Override
        protected TokenStreamComponents createComponents(String fieldName) {
          Tokenizer tokenizer = new StandardTokenizer();
          TokenStream stream = new LowerCaseFilter(tokenizer);
          stream = new ASCIIFoldingFilter(stream);
          stream = new SnowballFilter(stream, new EnglishStemmer());
          return new TokenStreamComponents(tokenizer, stream);
        }

        @Override
        protected TokenStream normalize(String fieldName, TokenStream in) {
          return new ASCIIFoldingFilter(new LowerCaseFilter(in));
        }
      };

  private static final Analyzer STANDARD_ANALYZER =
      new Analyzer() {
        @Override
        protected TokenStreamComponents createComponents(String fieldName) {
          Tokenizer tokenizer = new StandardTokenizer();
          return new TokenStreamComponents(tokenizer, new LowerCaseFilter(tokenizer));
        }

        @Override
        protected TokenStream normalize(String fieldName, TokenStream in) {
          return new LowerCaseFilter(in);
        }
      };

  private TextAnalysis() {}

  /** The shared analyzer, for Lucene's {@code IndexWriterConfig} and query building. */
  public static Analyzer analyzer() {
    return ANALYZER;
  }

  /** Whether {@code name} is an analyzer both stores implement. */
  public static boolean known(String name) {
    return NAME.equals(name) || STANDARD.equals(name);
  }

  /**
   * The analyzer called {@code name}: {@value #NAME} or {@value #STANDARD}.
   *
   * @throws IllegalArgumentException for another name (a mapping names only known analyzers)
   */
  public static Analyzer analyzer(String name) {
    return switch (name) {
      case NAME -> ANALYZER;
      case STANDARD -> STANDARD_ANALYZER;
      default -> throw new IllegalArgumentException("unknown analyzer [" + name + "]");
    };
  }

  /** The tokens of {@code text} as the analyzer called {@code name} makes them. */
  public static List<String> tokens(String name, String text) {
    return tokens(analyzer(name), text);
  }

  /**
   * The tokens of {@code text} in order, with repeats (term frequency and query-term multiplicity
   * both come from repeats). The number of tokens is the field length BM25 normalises by.
   */
  public static List<String> tokens(String text) {
    return tokens(ANALYZER, text);
  }

  private static List<String> tokens(Analyzer analyzer, String text) {
    List<String> out = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    try (TokenStream ts = analyzer.tokenStream("", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        out.add(term.toString());
      }
      ts.end();
    } catch (IOException e) {
      throw new UncheckedIOException("analysing an in-memory string cannot fail", e);
    }
    return out;
  }
}
