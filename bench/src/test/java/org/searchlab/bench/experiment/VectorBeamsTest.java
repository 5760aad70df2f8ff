package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The calibration grid's vector beams come from the profile, and a malformed grid is refused. */
class VectorBeamsTest {
  @Test
  void theProfilesDefaultToTheFullGridAndFullToOneReachingFurther() {
    for (Profile p : List.of(Profile.quick(), Profile.standard())) {
      assertEquals(Calibration.VECTOR_GRID, p.vectorBeams(), p.name());
    }
    // At 1M documents the calibrated beams move up: full's grid reaches 800 (design-68 §2.1).
    assertEquals(Profile.FULL_VECTOR_BEAMS, Profile.full().vectorBeams());
    // 12 vector and 3 hybrid beams, filtered and not, for each of 3 variants
    assertEquals(3 * 2 * (12 + 3), Calibration.cells(Profile.quick(), 3));
  }

  @Test
  void aCoarserGridCostsFewerCells() {
    Profile p = Profile.quick().toBuilder().vectorBeams(List.of(10, 40, 400)).build();
    assertEquals(List.of(10, 40, 400), p.vectorBeams());
    assertEquals(3 * 2 * (3 + 3), Calibration.cells(p, 3));
    assertEquals(p.calibrationQueries() * 3L * 2 * (3 + 3), Calibration.checks(p, 3));
  }

  @Test
  void aGridThatIsEmptyOutOfRangeOrNotAscendingIsRefusedNamingTheValue() {
    assertRefused(List.of(), "at least one vector beam");
    assertRefused(List.of(0, 10), "within 1 and 10000; got 0");
    assertRefused(List.of(10, 10_001), "within 1 and 10000; got 10001");
    assertRefused(List.of(10, 40, 20), "strictly ascending; got 20 after 40");
    assertRefused(List.of(10, 10), "strictly ascending; got 10 after 10");
  }

  private static void assertRefused(List<Integer> beams, String message) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Profile.quick().toBuilder().vectorBeams(beams).build());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
