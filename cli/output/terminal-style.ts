/**
 * Colour for terminal output, and only there: on when the stream is a terminal (and TERM is not
 * "dumb"), off when NO_COLOR is set to anything (no-color.org), forced by FORCE_COLOR, and
 * overridden by --color / --no-color. Pipes, files and CI logs get plain text.
 */
export function colourWanted(
  stream: { readonly isTTY?: boolean },
  flag: boolean | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (flag !== undefined) return flag;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false") return true;
  return stream.isTTY === true && env.TERM !== "dumb";
}

/** SGR wrappers; identity functions when colour is off, so callers never test for it. */
export interface Style {
  readonly enabled: boolean;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

export function style(enabled: boolean): Style {
  return enabled
    ? {
        enabled,
        red: sgr(31, 39),
        yellow: sgr(33, 39),
        green: sgr(32, 39),
        cyan: sgr(36, 39),
        dim: sgr(2, 22),
        bold: sgr(1, 22),
      }
    : { enabled, red: plain, yellow: plain, green: plain, cyan: plain, dim: plain, bold: plain };
}
