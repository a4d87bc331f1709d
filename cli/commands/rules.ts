import type { Command, CommonOptions } from "../options/command-context.ts";
import { noOptions } from "../options/command-context.ts";

export const rulesCommand: Command<CommonOptions> = (context) => ({
  command: "rules",
  describe: "List every declaration rule with its code.",
  builder: noOptions,
  handler: () =>
    context.run(async () => {
      const { allCodes } = await import("../../generator/diagnostics.ts");
      for (const c of allCodes)
        context.io.out(`${c.code}  ${c.severity.padEnd(7)}  ${c.rule.padEnd(30)}  ${c.summary}`);
      return 0;
    }),
});
