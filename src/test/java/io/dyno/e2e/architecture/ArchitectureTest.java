package io.dyno.e2e.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rules the compiler does not check. {@code module-info.java} already keeps applications (and
 * the other Dyno modules) out of internal packages they were not exported to; these rules hold the
 * code to the shape docs/architecture.md describes.
 */
class ArchitectureTest {

  private static JavaClasses library;

  @BeforeAll
  static void importClasses() {
    library = DynoClasses.library();
  }

  @Test
  void onlyTheEnginesBuilderReachesTheEngineInternals() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.dyno.core.exec.internal..")
        .and()
        .doNotHaveFullyQualifiedName("io.dyno.core.engine.internal.DynoEngine")
        .and()
        .doNotHaveFullyQualifiedName("io.dyno.core.engine.internal.DynoEngine$Builder")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.dyno.core.exec.internal..")
        .because(
            "the engine is assembled in one place, DynoEngine.Builder; drivers talk to it through io.dyno.core.engine.internal")
        .check(library);
  }

  /**
   * Each package of dyno-core and dyno-jedis can be read, changed and tested knowing only the
   * packages below it. The one edge allowed back is the engine's builder constructing the engine
   * (the rule above): an API package cannot hand out its implementation otherwise.
   */
  @Test
  void packagesOfCoreAndJedisFormNoCycles() {
    slices()
        .matching("io.dyno.(**)")
        .should()
        .beFreeOfCycles()
        .ignoreDependency(
            name("io.dyno.core.engine.internal.DynoEngine$Builder"),
            resideInAPackage("io.dyno.core.exec.internal.."))
        .because("a package cycle means no part of it can change without the others")
        .check(library.that(resideInAnyPackage("io.dyno.core..", "io.dyno.jedis..")));
  }

  @Test
  void timeIsReadThroughTheTicker() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.dyno.core..", "io.dyno.jedis..", "io.dyno.recipes..", "io.dyno.eureka..")
        .and()
        .resideOutsideOfPackage("io.dyno.core.time")
        .should()
        .callMethod(System.class, "nanoTime")
        .orShould()
        .callMethod(System.class, "currentTimeMillis")
        .because("one clock: io.dyno.core.time.Ticker, which tests replace with a manual one")
        .check(library);
  }

  @Test
  void logsGoThroughSlf4jOnly() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.util.logging..",
            "org.apache.log4j..",
            "org.apache.logging.log4j..",
            "ch.qos.logback..")
        .because("the library depends on slf4j-api only; the application picks the backend")
        .check(library);
  }
}
