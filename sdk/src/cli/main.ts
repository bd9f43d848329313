/**
 * `tabular`: the service from the shell. Exit codes: 0 ok, 1 the service answered an error,
 * 2 usage (bad arguments, not logged in), 3 a job waited for failed or was canceled, 4 the
 * service could not be reached.
 */
import { Command, CommanderError } from "commander";
import { datasetCommands } from "./datasets.js";
import { jobCommands } from "./jobs.js";
import { keyCommands } from "./keys.js";
import { loginCommand } from "./login.js";
import { modelCommands } from "./models.js";
import { EXIT, fail, state } from "./output.js";

const program = new Command("tabular")
  .description("Upload tables, train models, predict and explain, with the tabular ML service")
  .version("0.1.0")
  .option("--json", "print JSON answers (for scripts); errors as JSON on stderr")
  .showHelpAfterError()
  .exitOverride()
  .addHelpText(
    "after",
    `
Configuration: \`tabular login\`, or TABULAR_BASE_URL and TABULAR_API_KEY (these win over the file).
Exit codes: 0 ok, 1 API error, 2 usage, 3 job failed or canceled, 4 service unreachable.`,
  )
  .hook("preAction", (cmd) => {
    state.json = Boolean(cmd.optsWithGlobals().json);
  });

loginCommand(program);
datasetCommands(program);
modelCommands(program);
jobCommands(program);
keyCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and --version end with code 0; every other commander error is a usage error.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else process.exitCode = fail(err);
}
