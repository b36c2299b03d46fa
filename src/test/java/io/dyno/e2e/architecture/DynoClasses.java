package io.dyno.e2e.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;

/**
 * The library modules' main classes, as the architecture rules and the API baseline see them: every
 * {@code io.dyno} class on this module's class path but tests, test fixtures and the tools (demo,
 * load generator, benchmarks), which are applications of the library, not part of it.
 */
final class DynoClasses {

  /** Packages of the tools: they may use anything and publish nothing. */
  private static final Set<String> TOOL_PACKAGES =
      Set.of("io.dyno.demo", "io.dyno.loadgen", "io.dyno.bench", "io.dyno.e2e");

  private static JavaClasses cached;

  private DynoClasses() {}

  static synchronized JavaClasses library() {
    if (cached == null) {
      cached = new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TEST_FIXTURES)
          .withImportOption(
              location -> !location.contains("-tests.jar") && !location.contains("/test-classes/"))
          .importPackages("io.dyno")
          .that(DescribedPredicate.describe("library class", DynoClasses::isLibrary));
    }
    return cached;
  }

  static boolean isLibrary(JavaClass c) {
    String pkg = c.getPackageName();
    for (String tool : TOOL_PACKAGES) {
      if (pkg.equals(tool) || pkg.startsWith(tool + ".")) {
        return false;
      }
    }
    return !pkg.contains(".testing");
  }

  /** A package an application may use: not {@code internal}, nor below one. */
  static boolean isApiPackage(String pkg) {
    return !pkg.endsWith(".internal") && !pkg.contains(".internal.");
  }
}
