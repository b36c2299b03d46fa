package io.dyno.loadgen;

import io.dyno.loadgen.bench.BenchConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The load generator's command line: the picocli model of the options in {@link BenchOptionCatalog}
 * (one section per group, the older spellings hidden) and the parse into canonical names. A bench setting keeps its camelCase name ({@link BenchConfig})
 * in reports, the settings file, the console's {@code /set} and comparison variants; on the command
 * line it is the kebab-case form of that name, and the camelCase one still works.
 */
final class BenchOptions {
  /** A parsed command line: the tool's options and the bench settings by name, and the two flags. */
  record Parsed(
      Map<String, String> tool, Map<String, String> settings, boolean coordinate, boolean help) {}

  private static final String HELP = "help";
  private static final String COORDINATE = BenchOptionCatalog.COORDINATE;

  private BenchOptions() {}

  /** The picocli model: one section per group of canonical options; the older spellings hidden. */
  static CommandSpec spec() {
    CommandSpec spec = CommandSpec.create().name("bench");
    spec.usageMessage()
        .customSynopsis(
            "bench [--target <target>] [--driver <driver>] [--duration <duration>] [options]")
        .description(
            "Dyno's load generator: a run against a Dynomite cluster with a live console (--control-port), "
                + "endless until stopped unless --duration is given, several instances driven from one coordinator.")
        .sortOptions(false)
        .longOptionsMaxWidth(28)
        .footerHeading("%n")
        .footer(
            BenchOptionCatalog.RUNTIME
                + " the setting can change while the bench runs, from the console, POST /set?readRate=2000 "
                + "or --settings-file. Those, the reports and --compare variants use the camelCase setting names.",
            "Older spellings still work: each setting's camelCase name (--readRate for --read-rate), --conns for "
                + "--pool-size, --server for --target.");
    spec.addOption(OptionSpec.builder("-h", "--" + HELP)
        .usageHelp(true)
        .description("this help")
        .build());
    BenchOptionCatalog.sections().forEach((heading, opts) -> {
      ArgGroupSpec.Builder g = ArgGroupSpec.builder()
          .heading("%n" + heading + ":%n")
          .exclusive(false)
          .validate(false)
          .multiplicity("0..1");
      opts.forEach(o -> g.addArg(optionSpec("--" + o.name(), o, false)));
      spec.addArgGroup(g.build());
    });
    BenchOptionCatalog.aliases()
        .forEach((old, canonical) -> spec.addOption(
            optionSpec("--" + old, BenchOptionCatalog.options().get(canonical), true)));
    return spec;
  }

  private static OptionSpec optionSpec(String name, BenchOptionCatalog.Option o, boolean hidden) {
    OptionSpec.Builder b = OptionSpec.builder(name).description(o.help()).hidden(hidden);
    return o.label().isEmpty()
        ? b.arity("0").type(boolean.class).build()
        : b.paramLabel(o.label()).type(String.class).build();
  }

  /**
   * Parses {@code args}; throws picocli's ParameterException for an unknown option, a missing value,
   * or an option given twice (under its canonical name and an older one, too).
   */
  static Parsed parse(CommandLine cl, String[] args) {
    ParseResult pr = cl.parseArgs(args);
    Map<String, String> tool = new LinkedHashMap<>();
    Map<String, String> settings = new LinkedHashMap<>();
    Map<String, String> given = new LinkedHashMap<>();
    boolean coordinate = false;
    for (OptionSpec spec : pr.matchedOptions()) {
      String used = spec.longestName().substring(2);
      String name = BenchOptionCatalog.aliases().getOrDefault(used, used);
      if (name.equals(HELP)) continue;
      String before = given.put(name, used);
      if (before != null) {
        throw new CommandLine.ParameterException(
            cl,
            "option --" + name + " is given twice"
                + (before.equals(used) ? "" : " (as --" + before + " and as --" + used + ")"));
      }
      if (name.equals(COORDINATE)) {
        coordinate = true;
        continue;
      }
      BenchOptionCatalog.Option o = BenchOptionCatalog.options().get(name);
      String value = pr.matchedOptionValue(spec.longestName(), null);
      if (o.setting() != null) settings.put(o.setting(), value);
      else tool.put(name, value);
    }
    return new Parsed(tool, settings, coordinate, pr.isUsageHelpRequested());
  }
}
