package org.searchlab.core;

import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.lucene.util.VectorUtil;

/** Child of {@link VectorizationTest}: prints what Lucene logs when its vector code loads. */
public final class VectorizationChild {
  private VectorizationChild() {}

  public static void main(String[] args) {
    Logger lucene = Logger.getLogger("org.apache.lucene");
    lucene.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            System.out.println("log: " + r.getMessage());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
    System.out.println(
        "dot: " + VectorUtil.dotProduct(new float[] {0.6f, 0.8f}, new float[] {0.6f, 0.8f}));
  }
}
