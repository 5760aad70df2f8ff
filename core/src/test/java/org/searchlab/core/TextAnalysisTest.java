package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.analysis.TextAnalysis;

/** The chain is standard tokenizer → lowercase → asciifolding → porter2, with no stop words. */
class TextAnalysisTest {
  @Test
  void lowercaseFoldStem() {
    assertEquals(
        List.of("the", "runner", "are", "run", "to", "the", "cafe", "generous"),
        TextAnalysis.tokens("The RUNNERS are running to the Café generously"));
  }

  @Test
  void porter2NotPorter1() {
    // Words whose stems differ between the algorithms: Porter (1980) gives "fairli" and "gener",
    // Snowball English (porter2), which the benchmark's analyzer uses, gives these.
    assertEquals(List.of("fair", "generous"), TextAnalysis.tokens("fairly generously"));
  }

  @Test
  void standardTokenizerSplitsOnPunctuation() {
    assertEquals(
        List.of("usb", "c", "cabl", "3.5mm", "jack"),
        TextAnalysis.tokens("USB-C cable, 3.5mm jack!"));
    assertEquals(List.of(), TextAnalysis.tokens("  ...  "));
  }
}
