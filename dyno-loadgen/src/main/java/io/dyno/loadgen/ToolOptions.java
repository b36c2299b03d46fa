package io.dyno.loadgen;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/** A small tool's command line (companion-bench): options {@code --name value}, parsed by picocli. */
final class ToolOptions {
  private ToolOptions() {}

  /** Name → value of the options given; unknown options and missing values are refused with picocli's message. */
  static Map<String, String> parse(String command, List<String> names, String[] args) {
    CommandSpec spec = CommandSpec.create().name(command);
    for (String n : names)
      spec.addOption(
          OptionSpec.builder("--" + n).paramLabel("<value>").type(String.class).build());
    ParseResult pr;
    try {
      pr = new CommandLine(spec).parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(
          e.getMessage() + "; options: --" + String.join(", --", names));
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (OptionSpec o : pr.matchedOptions())
      m.put(o.longestName().substring(2), (String) pr.matchedOptionValue(o.longestName(), null));
    return m;
  }
}
