package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.searchlab.mutable.attributes.AttributeStore;
import org.searchlab.mutable.memory.PagedBits;
import org.searchlab.mutable.memory.PagedBytes;
import org.searchlab.mutable.memory.PagedInts;
import org.searchlab.mutable.memory.PagedLongs;

/**
 * The memory-ordering half of the lock-free protocols, pinned in the bytecode: which access mode
 * each publishing store and each reading load uses, and in which order.
 *
 * <p>Why a bytecode check: on x86-64 (TSO) stores are not reordered with stores nor loads with
 * loads, so replacing a release store or an acquire load by a plain one, or dropping a load-load
 * fence, changes nothing a test can observe on this machine; the racing tests of each class pass
 * with such a mutant (see {@code src/test/mutations/mutate.py}, kind {@code x86}). On ARM or POWER,
 * or after a JIT reordering, it would publish half-written data. So this test reads the compiled
 * methods and checks, for each step the classes' javadoc numbers, the {@code VarHandle} access mode
 * and the order of the accesses. A change to a protocol must change this test with it.
 */
class PublicationProtocolTest {
  private static final Set<String> TRACKED =
      Set.of("VarHandle", "PagedInts", "PagedLongs", "PagedBytes", "PagedBits", "PagedRefs");

  @Test
  void pagedColumnsUseTheAccessModesTheirNamesPromise() throws IOException {
    for (Class<?> c : List.of(PagedInts.class, PagedLongs.class, PagedBytes.class)) {
      assertInOrder(c, "getAcquire", "VarHandle.getAcquire");
      assertInOrder(c, "setRelease", "VarHandle.setRelease");
      assertInOrder(c, "setVolatile", "VarHandle.setVolatile");
    }
  }

  @Test
  void bitsAreReadWithAcquireAndWrittenWithRelease() throws IOException {
    for (String reader : List.of("get", "word", "nextSetBit")) {
      assertInOrder(PagedBits.class, reader, "PagedLongs.getAcquire");
      assertNever(PagedBits.class, reader, "PagedLongs.get");
    }
    assertInOrder(PagedBits.class, "set", "PagedLongs.get", "PagedLongs.setRelease");
    assertInOrder(PagedBits.class, "clear", "PagedLongs.get", "PagedLongs.setRelease");
    assertNever(PagedBits.class, "set", "PagedLongs.set");
  }

  /** {@link LocalIds}: born is written before died = MAX is released, read after it acquired. */
  @Test
  void localIdsPublishBirthBeforeLifeAndReadDeathFirst() throws IOException {
    assertInOrder(
        LocalIds.class,
        "allocate",
        "field:external",
        "PagedRefs.set",
        "field:born",
        "PagedLongs.set",
        "field:died",
        "PagedLongs.setRelease");
    assertInOrder(
        LocalIds.class,
        "visible",
        "field:died",
        "PagedLongs.getAcquire",
        "field:born",
        "PagedLongs.get");
    assertInOrder(
        LocalIds.class,
        "free",
        "field:died",
        "PagedLongs.setRelease",
        "field:born",
        "PagedLongs.set");
  }

  /** {@link AttributeStore}'s seqlock, steps 1 to 4 of its javadoc. */
  @Test
  void attributeSeqlockFencesBothSides() throws IOException {
    assertInOrder(
        AttributeStore.class,
        "write",
        "field:seq",
        "PagedInts.setVolatile",
        "VarHandle.storeStoreFence",
        "field:category",
        "PagedInts.set",
        "field:seq",
        "PagedInts.setRelease");
    assertInOrder(
        AttributeStore.class,
        "matches",
        "field:seq",
        "PagedInts.getAcquire",
        "field:category",
        "PagedInts.get",
        "field:price",
        "PagedInts.get",
        "VarHandle.loadLoadFence",
        "field:seq",
        "PagedInts.get");
  }

  /** The graph's storage: level 0's flat table, then the node's levels, both released. */
  @Test
  void graphListsArePublishedWithReleaseAndReadWithAcquire() throws IOException {
    Class<?> adjacency = org.searchlab.mutable.hnsw.MutableHnswGraph.class;
    Class<?> c = load(adjacency.getPackageName() + ".HnswAdjacency");
    assertInOrder(
        c,
        "publishNode",
        "field:scores",
        "field:level0",
        "VarHandle.setRelease",
        "field:nodes",
        "VarHandle.setRelease");
    assertInOrder(
        c, "replaceLinks", "field:level0", "VarHandle.setRelease", "VarHandle.setRelease");
    assertInOrder(
        c, "links", "VarHandle.getAcquire", "VarHandle.getAcquire", "VarHandle.getAcquire");
    assertNever(c, "links", "VarHandle.get");
  }

  /**
   * The rows behind the vectors: a row is released whole and acquired; a list's ids are plain
   * stores before the count's release store, and the count is read with acquire before the ids.
   */
  @Test
  void rowsReleaseTheLinkCountAfterTheIds() throws IOException {
    Class<?> adjacency = org.searchlab.mutable.hnsw.MutableHnswGraph.class;
    Class<?> c = load(adjacency.getPackageName() + ".RowFloatSlots");
    assertInOrder(c, "put", "VarHandle.setRelease");
    assertInOrder(c, "row", "VarHandle.getAcquire");
    assertNever(c, "row", "VarHandle.get");
    // The ids are plain array stores and must all come before the count's release (H1).
    assertInOrder(c, "setLinks", "array-store", "VarHandle.setRelease");
    assertNever(c, "setLinks", "VarHandle.set");
    List<String> links = events(c, "setLinks");
    assertTrue(
        links.lastIndexOf("array-store") < links.lastIndexOf("VarHandle.setRelease"),
        "RowFloatSlots.setLinks stores an id after releasing the count: " + links);
    assertInOrder(c, "linkCount", "VarHandle.getAcquire");
    assertNever(c, "linkCount", "VarHandle.get");
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }

  /** {@code expected} occurs in the method's accesses in this order (other accesses between). */
  private static void assertInOrder(Class<?> c, String method, String... expected)
      throws IOException {
    List<String> events = events(c, method);
    int at = 0;
    for (String e : events) {
      if (at < expected.length && e.equals(expected[at])) {
        at++;
      }
    }
    assertTrue(
        at == expected.length,
        c.getSimpleName()
            + "."
            + method
            + " lost step '"
            + (at < expected.length ? expected[at] : "")
            + "' of "
            + List.of(expected)
            + "; its accesses: "
            + events);
  }

  private static void assertNever(Class<?> c, String method, String event) throws IOException {
    List<String> events = events(c, method);
    assertFalse(
        events.contains(event),
        c.getSimpleName() + "." + method + " uses " + event + ": " + events);
  }

  /**
   * The field reads and writes ({@code field:name}), the stores into arrays ({@code array-store})
   * and the calls to {@code VarHandle} and the paged columns ({@code Owner.method}) of every method
   * named {@code method}, in bytecode order.
   */
  static List<String> events(Class<?> c, String method) throws IOException {
    List<String> out = new ArrayList<>();
    String resource = "/" + c.getName().replace('.', '/') + ".class";
    try (InputStream in = c.getResourceAsStream(resource)) {
      new ClassReader(in.readAllBytes())
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(
                    int access, String name, String desc, String sig, String[] exceptions) {
                  if (!name.equals(method)) {
                    return null;
                  }
                  return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitFieldInsn(int op, String owner, String field, String d) {
                      out.add("field:" + field);
                    }

                    @Override
                    public void visitInsn(int op) {
                      if (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) {
                        out.add("array-store");
                      }
                    }

                    @Override
                    public void visitMethodInsn(
                        int op, String owner, String called, String d, boolean itf) {
                      String simple = owner.substring(owner.lastIndexOf('/') + 1);
                      if (TRACKED.contains(simple)) {
                        out.add(simple + "." + called);
                      }
                    }
                  };
                }
              },
              ClassReader.SKIP_DEBUG);
    }
    assertFalse(out.isEmpty(), c.getSimpleName() + " has no method " + method + " with accesses");
    return out;
  }
}
