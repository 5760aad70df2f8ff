package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.agg.Aggregation.MetricKind;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.server.vespa.GroupingParser.Aggr;
import org.searchlab.server.vespa.GroupingParser.AggrKind;
import org.searchlab.server.vespa.GroupingParser.GroupBy;
import org.searchlab.server.vespa.GroupingParser.Op;
import org.searchlab.server.vespa.GroupingParser.Order;

/**
 * Vespa grouping over core's aggregation engine: {@link #translate} turns parsed grouping requests
 * ({@link GroupingParser}) into core {@link Aggregation}s plus the plan to read their results back,
 * and {@link #render} writes those results in Vespa's result shape ({@code group:root:0}, {@code
 * grouplist:<label>}, {@code group:string:Books}, {@code group:long_bucket:0:10}, ...). Immutable
 * and thread-safe.
 *
 * <p>The mapping, one root at a time: the root is a {@code filter} on every match (its count is the
 * root's {@code count()}); {@code group(attribute)} is a {@code terms} aggregation, {@code size}
 * from {@code max()} and {@code order} from {@code order()}; {@code group(predefined(attribute,
 * bucket...))} is a {@code range} aggregation of Vespa's half-open buckets; {@code
 * output(sum|avg|min|max(f))} are metric sub-aggregations and {@code count()} the bucket's document
 * count; an {@code order()} on a metric the outputs do not have adds a hidden metric to order by.
 *
 * <p>Where this differs from Vespa, on purpose and documented in {@code docs/aggregations.md}:
 * without {@code order()} groups come by count descending, then value ascending (Vespa's default,
 * {@code -max(relevance())}, needs a score per group, which core does not keep); a document without
 * a value is in no group (Vespa makes a group of the attribute's default value); every group has
 * relevance 1.0.
 */
final class VespaGrouping {
  /** Vespa's {@code grouping.defaultMaxGroups}: the groups of a level without {@code max()}. */
  static final int DEFAULT_MAX_GROUPS = 10;

  /**
   * Vespa's {@code grouping.globalMaxGroups} default: the most groups a request may produce in the
   * worst case (the sum over levels of the product of their {@code max()}), checked before any
   * work. Vespa refuses the parameter in a request; so does this server.
   */
  static final long GLOBAL_MAX_GROUPS = 10_000;

  /** The grouping of a request without one. */
  static final VespaGrouping NONE = new VespaGrouping(List.of());

  /**
   * One output of a group: {@code count()} (no aggregation) or a metric sub-aggregation.
   *
   * @param label the name in the group's {@code fields}
   * @param agg the sub-aggregation's name, or null for {@code count()}
   * @param integral whether the value renders as a long (min, max and sum of an integer field)
   */
  record Output(String label, String agg, boolean integral) {}

  /**
   * One group list: a terms or range aggregation and what each of its groups shows.
   *
   * @param agg the aggregation's name among its parent's sub-aggregations
   * @param label the list's label ({@code as(...)}, or the group expression)
   * @param type the grouped field's type
   * @param predefined whether the groups are predefined buckets (a range aggregation)
   * @param max the most groups to show
   */
  record GroupList(
      String agg,
      String label,
      FieldType type,
      boolean predefined,
      int max,
      List<Output> outputs,
      List<GroupList> lists) {}

  /** One root: a filter on every match, with outputs and group lists. */
  record Root(String agg, List<Output> outputs, List<GroupList> lists) {}

  private final List<Root> roots;
  private final Map<String, Aggregation> aggregations;

  private VespaGrouping(List<Root> roots) {
    this(roots, Map.of());
  }

  private VespaGrouping(List<Root> roots, Map<String, Aggregation> aggregations) {
    this.roots = List.copyOf(roots);
    this.aggregations = aggregations;
  }

  /** The core aggregations to run, by name. */
  Map<String, Aggregation> aggregations() {
    return aggregations;
  }

  boolean isEmpty() {
    return roots.isEmpty();
  }

  /**
   * Translates parsed grouping requests against a mapping.
   *
   * @param yql the statement, for error pointers
   * @param defaultMax the groups of a level without {@code max()}; {@link GroupingParser#UNLIMITED}
   *     for no limit
   */
  static VespaGrouping translate(String yql, List<Op> ops, Mapping mapping, int defaultMax) {
    Translator t = new Translator(yql, mapping, defaultMax);
    List<Root> roots = new ArrayList<>();
    Map<String, Aggregation> aggs = new LinkedHashMap<>();
    long worstCase = 0;
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      if (op.each()) {
        throw new YqlException(
            yql, op.column(), "a grouping request starts with all(); each() lists hits or groups");
      }
      Map<String, Aggregation> subs = new LinkedHashMap<>();
      List<Output> outputs = new ArrayList<>();
      List<GroupList> lists = new ArrayList<>();
      if (op.groupBy() != null) {
        lists.add(t.list(op, subs, 0));
      } else {
        t.noListClauses(op);
        outputs.addAll(t.outputs(op.outputs(), subs));
        for (Op child : op.children()) {
          lists.add(t.list(t.grouping(child), subs, lists.size()));
        }
      }
      String name = "root" + i;
      aggs.put(name, new Aggregation.Filter(Query.MatchAll.INSTANCE, subs));
      roots.add(new Root(name, outputs, lists));
      for (GroupList l : lists) {
        worstCase = saturatedAdd(worstCase, worstCase(l, 1));
      }
    }
    if (worstCase > GLOBAL_MAX_GROUPS) {
      throw new InvalidRequestException(
          "The theoretical total number of groups in the grouping request exceeds"
              + " grouping.globalMaxGroups ("
              + (worstCase == Long.MAX_VALUE ? "unbounded" : String.valueOf(worstCase))
              + " > "
              + GLOBAL_MAX_GROUPS
              + "): restrict each level with max(n)"
              + (defaultMax == GroupingParser.UNLIMITED
                  ? " or set grouping.defaultMaxGroups"
                  : ""));
    }
    return new VespaGrouping(roots, java.util.Collections.unmodifiableMap(aggs));
  }

  /** The most groups a list and the lists under it can produce, {@code parents} groups above. */
  private static long worstCase(GroupList l, long parents) {
    long here = l.max() == GroupingParser.UNLIMITED ? Long.MAX_VALUE : l.max();
    long total = saturatedMul(parents, here);
    long sum = total;
    for (GroupList sub : l.lists()) {
      sum = saturatedAdd(sum, worstCase(sub, total));
    }
    return sum;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  private static long saturatedMul(long a, long b) {
    return a != 0 && b > Long.MAX_VALUE / a ? Long.MAX_VALUE : a * b;
  }

  /** The translation of one request: the mapping, the default max and the error pointers. */
  private record Translator(String yql, Mapping mapping, int defaultMax) {
    /** A child op that must group: {@code all(group(...))} or {@code each(group(...))}. */
    Op grouping(Op child) {
      if (child.groupBy() == null) {
        throw new YqlException(
            yql,
            child.column(),
            child.each()
                ? "each() without group() lists hits; summary() hit lists are not supported here"
                : "all() without group() is supported only at the root");
      }
      return child;
    }

    void noListClauses(Op op) {
      if (op.max() != null || !op.order().isEmpty()) {
        throw new YqlException(
            yql,
            op.column(),
            "max() and order() limit and order groups; they go next to group(...)");
      }
    }

    /** The group list of an op with {@code group(...)}, its aggregation added to {@code into}. */
    GroupList list(Op op, Map<String, Aggregation> into, int index) {
      GroupBy g = op.groupBy();
      FieldType type = field(g.field(), g.column(), false);
      if (!op.outputs().isEmpty()) {
        throw new YqlException(
            yql,
            op.outputs().get(0).column(),
            "output() next to group() would count the groups, which is not supported; put"
                + " outputs inside each()");
      }
      // The groups' content: one each(), its outputs and the group lists under it.
      Map<String, Aggregation> subs = new LinkedHashMap<>();
      List<Output> outputs = new ArrayList<>();
      List<GroupList> lists = new ArrayList<>();
      String label = g.text();
      Op each = null;
      for (Op child : op.children()) {
        if (!child.each()) {
          throw new YqlException(
              yql, child.column(), "nested groupings go inside each(...) of the groups");
        }
        if (each != null) {
          throw new YqlException(yql, child.column(), "one each() per group() is supported");
        }
        each = child;
      }
      if (each != null) {
        if (each.label() != null) {
          label = each.label();
        }
        if (each.groupBy() != null) {
          // each(group(b) ...): the group's documents grouped again, as one list.
          lists.add(list(each, subs, 0));
        } else {
          noListClauses(each);
          outputs.addAll(outputs(each.outputs(), subs));
          for (Op child : each.children()) {
            lists.add(list(grouping(child), subs, lists.size()));
          }
        }
      }
      int max = op.max() != null ? op.max() : defaultMax;
      String name = "list" + index;
      if (g.predefined()) {
        if (!op.order().isEmpty()) {
          throw new YqlException(
              yql,
              op.order().get(0).aggr().column(),
              "order() of predefined() buckets is not supported; buckets come by their bounds");
        }
        if (!(type instanceof FieldType.Numeric || type instanceof FieldType.Date)) {
          throw new YqlException(
              yql,
              g.column(),
              "predefined() buckets a numeric attribute; '" + g.field() + "' is not");
        }
        List<Aggregation.RangeSpec> ranges = new ArrayList<>();
        for (GroupingParser.Bucket b : g.buckets()) {
          ranges.add(
              new Aggregation.RangeSpec(
                  null,
                  b.from() == null ? null : b.from().doubleValue(),
                  b.to() == null ? null : b.to().doubleValue()));
        }
        into.put(name, new Aggregation.Range(g.field(), ranges, false, subs));
        boolean integral = g.buckets().get(0).integral();
        FieldType bucketType =
            integral
                ? new FieldType.Numeric(org.searchlab.core.mapping.NumberType.LONG, true, true)
                : new FieldType.Numeric(org.searchlab.core.mapping.NumberType.DOUBLE, true, true);
        int shown = max == GroupingParser.UNLIMITED ? g.buckets().size() : max;
        return new GroupList(
            name, label, bucketType, true, Math.min(shown, g.buckets().size()), outputs, lists);
      }
      List<BucketOrder> order = new ArrayList<>();
      int hidden = 0;
      for (Order o : op.order()) {
        Aggr a = o.aggr();
        if (a.kind() == AggrKind.COUNT) {
          order.add(new BucketOrder(BucketOrder.COUNT, !o.descending()));
          continue;
        }
        if (a.field().equals(g.field())
            && (a.kind() == AggrKind.MIN || a.kind() == AggrKind.MAX)
            && !(type instanceof FieldType.Numeric)) {
          // A group's own value: the one value its documents share.
          order.add(new BucketOrder(BucketOrder.KEY, !o.descending()));
          continue;
        }
        String agg = null;
        for (Output out : outputs) {
          if (out.agg() != null
              && subs.get(out.agg()) instanceof Aggregation.Metric m
              && m.field().equals(a.field())
              && m.kind() == metricKind(a.kind())) {
            agg = out.agg();
          }
        }
        if (agg == null) {
          field(a.field(), a.column(), true);
          agg = "order" + hidden++;
          subs.put(agg, new Aggregation.Metric(metricKind(a.kind()), a.field(), null));
        }
        order.add(new BucketOrder(agg, !o.descending()));
      }
      if (max == 0) {
        throw new YqlException(yql, op.column(), "max(0) shows no group; use max(1) or more");
      }
      int size =
          max == GroupingParser.UNLIMITED || max > Aggregation.MAX_BUCKETS
              ? Aggregation.MAX_BUCKETS
              : max;
      into.put(name, new Aggregation.Terms(g.field(), size, 0, order, 1, null, subs));
      return new GroupList(name, label, type, false, max, outputs, lists);
    }

    List<Output> outputs(List<Aggr> aggrs, Map<String, Aggregation> into) {
      List<Output> out = new ArrayList<>();
      for (Aggr a : aggrs) {
        if (a.kind() == AggrKind.COUNT) {
          out.add(new Output(a.name(), null, true));
          continue;
        }
        FieldType f = field(a.field(), a.column(), true);
        String agg = "out" + into.size();
        into.put(agg, new Aggregation.Metric(metricKind(a.kind()), a.field(), null));
        boolean integral =
            a.kind() != AggrKind.AVG
                && (f instanceof FieldType.Date
                    || f instanceof FieldType.Bool
                    || (f instanceof FieldType.Numeric n && n.type().integral()));
        out.add(new Output(a.name(), agg, integral));
      }
      return out;
    }

    /** An attribute of the mapping that groups or aggregates; a 400 in Vespa's terms if not. */
    FieldType field(String name, int column, boolean metric) {
      FieldType f = mapping.leaf(name);
      if (f == null) {
        throw new YqlException(yql, column, "grouping attribute '" + name + "' does not exist");
      }
      boolean ok =
          f instanceof FieldType.Numeric
              || f instanceof FieldType.Date
              || f instanceof FieldType.Bool
              || (!metric && f instanceof FieldType.Keyword);
      if (!ok) {
        throw new YqlException(
            yql,
            column,
            "'"
                + name
                + "' is a "
                + f.esName()
                + " field, not an attribute "
                + (metric ? "a metric reads (numeric, date, boolean)" : "a group reads")
                + " (keyword, numeric, date, boolean)");
      }
      return f;
    }
  }

  private static MetricKind metricKind(AggrKind k) {
    return switch (k) {
      case SUM -> MetricKind.SUM;
      case AVG -> MetricKind.AVG;
      case MIN -> MetricKind.MIN;
      case MAX -> MetricKind.MAX;
      case COUNT -> throw new IllegalArgumentException("count() is a bucket's document count");
    };
  }

  // ----------------------------------------------------------------------------------------------
  // Rendering

  /** Appends each root group, in Vespa's result shape, to {@code children}. */
  void render(Map<String, AggregationResult> results, ArrayNode children) {
    for (int i = 0; i < roots.size(); i++) {
      Root r = roots.get(i);
      AggregationResult.SingleBucket b = (AggregationResult.SingleBucket) results.get(r.agg());
      ObjectNode root = children.addObject();
      root.put("id", "group:root:" + i).put("relevance", 1.0);
      root.putObject("continuation").put("this", "");
      fields(root, r.outputs(), b.docCount(), b.subAggregations());
      lists(root, r.lists(), b.subAggregations());
    }
  }

  private static void lists(
      ObjectNode parent, List<GroupList> lists, Map<String, AggregationResult> subs) {
    if (lists.isEmpty()) {
      return;
    }
    ArrayNode children = parent.putArray("children");
    for (GroupList l : lists) {
      ObjectNode list = children.addObject();
      list.put("id", "grouplist:" + l.label()).put("label", l.label()).put("relevance", 1.0);
      AggregationResult.Buckets buckets = (AggregationResult.Buckets) subs.get(l.agg());
      ArrayNode groups = null;
      int shown = 0;
      for (AggregationResult.Bucket b : buckets.buckets()) {
        // Vespa makes groups of documents only: an empty predefined bucket is no group.
        if (b.docCount() == 0 || (l.max() != GroupingParser.UNLIMITED && shown >= l.max())) {
          continue;
        }
        shown++;
        if (groups == null) {
          groups = list.putArray("children");
        }
        ObjectNode g = groups.addObject();
        if (l.predefined()) {
          boolean integral = l.type() instanceof FieldType.Numeric n && n.type().integral();
          String from = bound(b.from(), integral, false);
          String to = bound(b.to(), integral, true);
          g.put("id", "group:" + (integral ? "long" : "double") + "_bucket:" + from + ":" + to)
              .put("relevance", 1.0);
          g.putObject("limits").put("from", from).put("to", to);
        } else {
          String[] idValue = idValue(l.type(), b);
          g.put("id", "group:" + idValue[0] + ":" + idValue[1])
              .put("relevance", 1.0)
              .put("value", idValue[1]);
        }
        fields(g, l.outputs(), b.docCount(), b.subAggregations());
        lists(g, l.lists(), b.subAggregations());
      }
    }
  }

  /** A bucket bound as Vespa writes it: a long's digits (±inf the long's extremes), a double. */
  private static String bound(Double v, boolean integral, boolean upper) {
    if (integral) {
      long l = v == null ? (upper ? Long.MAX_VALUE : Long.MIN_VALUE) : v.longValue();
      return Long.toString(l);
    }
    return Double.toString(
        v == null ? (upper ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY) : v);
  }

  /** The type in a value group's id and its value: {@code string}, {@code long}, ... */
  private static String[] idValue(FieldType type, AggregationResult.Bucket b) {
    return switch (type) {
      case FieldType.Keyword k -> new String[] {"string", b.key().toString()};
      case FieldType.Bool bool ->
          new String[] {
            "bool",
            b.keyAsString() != null
                ? b.keyAsString()
                : Boolean.toString(((Number) b.key()).longValue() != 0)
          };
      default ->
          b.key() instanceof Double d
              ? new String[] {"double", Double.toString(d)}
              : new String[] {"long", Long.toString(((Number) b.key()).longValue())};
    };
  }

  private static void fields(
      ObjectNode group, List<Output> outputs, long docCount, Map<String, AggregationResult> subs) {
    if (outputs.isEmpty()) {
      return;
    }
    ObjectNode fields = group.putObject("fields");
    for (Output o : outputs) {
      if (o.agg() == null) {
        fields.put(o.label(), docCount);
        continue;
      }
      Double v = ((AggregationResult.Value) subs.get(o.agg())).value();
      if (v == null) {
        continue; // as Vespa: a field without a value is not rendered
      }
      if (o.integral() && Math.abs(v) < 0x1p63) {
        fields.put(o.label(), Math.round(v));
      } else {
        fields.put(o.label(), v);
      }
    }
  }
}
