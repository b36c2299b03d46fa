package io.dyno.e2e.architecture;

import static org.assertj.core.api.Assertions.fail;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The public API of the library modules, checked in as {@code api/public-api.txt}: every public type
 * of a non-internal package, with its public and protected members. A change to the surface fails
 * here until the file is rewritten with it ({@code mvn -pl dyno-e2e test -Dtest=PublicApiBaselineTest
 * -Ddyno.api.update=true}), so that every API change is a line in a reviewed diff. Types are erased
 * (generic arguments are not compared).
 */
class PublicApiBaselineTest {

  private static final Set<JavaModifier> SHOWN = Set.of(
      JavaModifier.PUBLIC,
      JavaModifier.PROTECTED,
      JavaModifier.STATIC,
      JavaModifier.FINAL,
      JavaModifier.ABSTRACT);

  @Test
  void publicSurfaceMatchesTheBaseline() throws IOException {
    Path baseline = repositoryRoot().resolve("api/public-api.txt");
    List<String> now = surface();
    if (Boolean.getBoolean("dyno.api.update")) {
      Files.createDirectories(baseline.getParent());
      List<String> out = new ArrayList<>();
      out.add(
          "# The public API of Dyno's library modules; PublicApiBaselineTest (dyno-e2e) keeps it.");
      out.add(
          "# Rewrite it with: mvn -pl dyno-e2e test -Dtest=PublicApiBaselineTest -Ddyno.api.update=true");
      out.addAll(now);
      Files.write(baseline, out, StandardCharsets.UTF_8);
      return;
    }
    if (!Files.exists(baseline)) {
      fail(baseline + " is missing; write it with -Ddyno.api.update=true");
    }
    List<String> kept = Files.readAllLines(baseline, StandardCharsets.UTF_8).stream()
        .filter(l -> !l.startsWith("#"))
        .collect(Collectors.toList());
    Set<String> added = new LinkedHashSet<>(now);
    kept.forEach(added::remove);
    Set<String> removed = new LinkedHashSet<>(kept);
    now.forEach(removed::remove);
    if (!added.isEmpty() || !removed.isEmpty()) {
      fail("the public API changed without api/public-api.txt:\n"
          + added.stream().map(l -> "+ " + l).collect(Collectors.joining("\n"))
          + (added.isEmpty() || removed.isEmpty() ? "" : "\n")
          + removed.stream().map(l -> "- " + l).collect(Collectors.joining("\n"))
          + "\nIf the change is meant, rewrite the baseline: mvn -pl dyno-e2e test"
          + " -Dtest=PublicApiBaselineTest -Ddyno.api.update=true");
    }
  }

  /** One line per public type and per visible member, sorted, so the file diffs well. */
  static List<String> surface() {
    Set<String> lines = new TreeSet<>();
    for (JavaClass c : DynoClasses.library()) {
      if (!DynoClasses.isApiPackage(c.getPackageName()) || !visible(c)) {
        continue;
      }
      String type = c.getName();
      lines.add(type + " " + modifiers(c.getModifiers()) + kind(c) + supertypes(c));
      boolean extensible =
          !c.getModifiers().contains(JavaModifier.FINAL) && !c.isEnum() && !c.isRecord();
      for (JavaField f : c.getFields()) {
        if (shown(f, extensible)) {
          lines.add(type + "#" + f.getName() + " " + modifiers(f.getModifiers())
              + f.getRawType().getName());
        }
      }
      for (JavaCodeUnit m : c.getCodeUnits()) {
        if (shown(m, extensible)
            && !m.getModifiers().contains(JavaModifier.SYNTHETIC)
            && !m.getModifiers().contains(JavaModifier.BRIDGE)
            && !m.getName().equals("<clinit>")) {
          String params = m.getRawParameterTypes().stream()
              .map(JavaClass::getName)
              .collect(Collectors.joining(", "));
          lines.add(type + "#" + m.getName() + "(" + params + ") " + modifiers(m.getModifiers())
              + m.getRawReturnType().getName());
        }
      }
    }
    return new ArrayList<>(lines);
  }

  private static boolean visible(JavaClass c) {
    if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
      return false;
    }
    return c.getEnclosingClass().map(PublicApiBaselineTest::visible).orElse(true);
  }

  private static boolean shown(JavaMember m, boolean extensible) {
    Set<JavaModifier> mods = m.getModifiers();
    return mods.contains(JavaModifier.PUBLIC)
        || (extensible && mods.contains(JavaModifier.PROTECTED));
  }

  private static String modifiers(Set<JavaModifier> mods) {
    return SHOWN.stream()
        .filter(mods::contains)
        .map(m -> m.name().toLowerCase() + " ")
        .sorted()
        .collect(Collectors.joining());
  }

  private static String kind(JavaClass c) {
    if (c.isAnnotation()) {
      return "@interface";
    }
    if (c.isInterface()) {
      return "interface";
    }
    if (c.isEnum()) {
      return "enum";
    }
    return c.isRecord() ? "record" : "class";
  }

  private static String supertypes(JavaClass c) {
    List<String> names = new ArrayList<>();
    c.getRawSuperclass()
        .filter(s -> !s.getName().equals("java.lang.Object")
            && !s.getName().equals("java.lang.Enum")
            && !s.getName().equals("java.lang.Record"))
        .ifPresent(s -> names.add("extends " + s.getName()));
    c.getRawInterfaces().stream()
        .map(JavaClass::getName)
        .sorted()
        .forEach(i -> names.add("implements " + i));
    return names.isEmpty() ? "" : " " + String.join(" ", names);
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("dyno-bom"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no repository root (a folder holding dyno-bom) above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
